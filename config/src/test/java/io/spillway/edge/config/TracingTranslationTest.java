package io.spillway.edge.config;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.List;
import org.junit.jupiter.api.Test;

/** The connection manager's tracing with the Zipkin provider, the route decorator, and each refusal with its path. */
class TracingTranslationTest {

  private static final String ZIPKIN_TYPE = "type.googleapis.com/envoy.config.trace.v3.ZipkinConfig";
  private static final String TRACING = BootstrapYaml.HCM + ".tracing";
  private static final String ZIPKIN = TRACING + ".provider.typed_config";

  private static final String COLLECTOR = """
      - name: zipkin
        connect_timeout: 1s
        load_assignment:
          cluster_name: zipkin
          endpoints:
          - lb_endpoints:
            - endpoint:
                address:
                  socket_address: {address: 127.0.0.1, port_value: 9411}
      - name: backend
        connect_timeout: 1s
        load_assignment:
          cluster_name: backend
          endpoints:
          - lb_endpoints:
            - endpoint:
                address:
                  socket_address: {address: 127.0.0.1, port_value: 8080}
      """;

  /** A bootstrap whose connection manager has {@code tracing} with these fields and a Zipkin provider with {@code zipkin}. */
  private static BootstrapYaml tracing(String fields, String zipkin) {
    return BootstrapYaml.minimal().clusters(COLLECTOR).hcm("""
        tracing:
        %s
          provider:
            name: envoy.tracers.zipkin
            typed_config:
              "@type": %s
        %s
        """.formatted(fields.stripIndent().indent(2).stripTrailing(), ZIPKIN_TYPE,
        zipkin.stripIndent().indent(6).stripTrailing()));
  }

  private static final String VALID_ZIPKIN = """
      collector_cluster: zipkin
      collector_endpoint: /api/v2/spans
      collector_endpoint_version: HTTP_JSON
      """;

  private static TracingConfig translate(BootstrapYaml yaml) throws ConfigException {
    return yaml.translate().listeners().get(0).hcm().tracing().orElseThrow();
  }

  @Test
  void everySupportedField() throws Exception {
    TracingConfig t = translate(tracing("""
        client_sampling: {value: 50}
        random_sampling: {value: 12.34}
        overall_sampling: {value: 0}
        max_path_tag_length: 64
        spawn_upstream_span: true
        verbose: false
        custom_tags:
        - {tag: team, literal: {value: edge}}
        - {tag: tenant, request_header: {name: X-Tenant, default_value: none}}
        - {tag: host, environment: {name: HOSTNAME, default_value: unknown}}
        """, """
        collector_cluster: zipkin
        collector_endpoint: /api/v2/spans
        collector_endpoint_version: HTTP_JSON
        collector_hostname: zipkin.example
        trace_id_128bit: true
        shared_span_context: false
        """));
    assertThat(t.clientSampling()).isEqualTo(5_000);
    assertThat(t.randomSampling()).isEqualTo(1_234);
    assertThat(t.overallSampling()).isZero();
    assertThat(t.maxPathTagLength()).isEqualTo(64);
    assertThat(t.spawnUpstreamSpan()).isTrue();
    assertThat(t.customTags()).containsExactly(
        new TracingConfig.CustomTag("team", TracingConfig.CustomTag.Source.LITERAL, "edge", ""),
        new TracingConfig.CustomTag("tenant", TracingConfig.CustomTag.Source.REQUEST_HEADER, "x-tenant", "none"),
        new TracingConfig.CustomTag("host", TracingConfig.CustomTag.Source.ENVIRONMENT, "HOSTNAME", "unknown"));
    assertThat(t.provider()).isEqualTo(
        new TracingConfig.Zipkin("zipkin", "/api/v2/spans", "zipkin.example", true, false));
  }

  @Test
  void envoysDefaultsWhenFieldsAreUnset() throws Exception {
    TracingConfig t = translate(tracing("", VALID_ZIPKIN));
    assertThat(List.of(t.clientSampling(), t.randomSampling(), t.overallSampling()))
        .containsOnly(TracingConfig.ALL);
    assertThat(t.maxPathTagLength()).isEqualTo(256);
    assertThat(t.spawnUpstreamSpan()).isFalse();
    assertThat(t.customTags()).isEmpty();
    // collector_hostname defaults to the cluster's name, shared_span_context to true, 64-bit trace ids.
    assertThat(t.provider()).isEqualTo(new TracingConfig.Zipkin("zipkin", "/api/v2/spans", "zipkin", false, true));
    assertThat(BootstrapYaml.minimal().translate().listeners().get(0).hcm().tracing()).isEmpty();
  }

  @Test
  void aLaterCustomTagOfTheSameNameReplacesTheEarlierOne() throws Exception {
    TracingConfig t = translate(tracing("""
        custom_tags:
        - {tag: a, literal: {value: one}}
        - {tag: b, literal: {value: two}}
        - {tag: a, literal: {value: three}}
        """, VALID_ZIPKIN));
    assertThat(t.customTags()).extracting(TracingConfig.CustomTag::tag, TracingConfig.CustomTag::name)
        .containsExactly(org.assertj.core.groups.Tuple.tuple("b", "two"), org.assertj.core.groups.Tuple.tuple("a", "three"));
  }

  @Test
  void refusalsNameTheFieldAndTheRule() {
    tracing("verbose: true", VALID_ZIPKIN).rejects(TRACING + ".verbose: verbose span annotations are not supported");
    tracing("random_sampling: {value: 101}", VALID_ZIPKIN)
        .rejects(TRACING + ".random_sampling.value: must be in [0, 100], not 101.0");
    tracing("custom_tags: [{tag: m, metadata: {kind: {request: {}}, metadata_key: {key: k, path: [{key: p}]}}}]",
        VALID_ZIPKIN).rejects(TRACING + ".custom_tags[0].metadata: metadata custom tags are not supported");
    tracing("custom_tags: [{tag: h, request_header: {name: \"bad name\"}}]", VALID_ZIPKIN)
        .rejects(TRACING + ".custom_tags[0].request_header.name: \"bad name\" is not a valid header name");
    tracing("custom_tags: [{tag: \"\", literal: {value: v}}]", VALID_ZIPKIN)
        .rejects(TRACING + ".custom_tags[0].tag: tag is required");
    tracing("", """
        collector_cluster: nowhere
        collector_endpoint: /api/v2/spans
        collector_endpoint_version: HTTP_JSON
        """).rejects(ZIPKIN + ".collector_cluster: unknown cluster \"nowhere\"");
    tracing("", """
        collector_cluster: zipkin
        collector_endpoint_version: HTTP_JSON
        """).rejects(ZIPKIN + ".collector_endpoint: collector_endpoint is required");
    tracing("", """
        collector_cluster: zipkin
        collector_endpoint: api/v2/spans
        collector_endpoint_version: HTTP_JSON
        """).rejects(ZIPKIN + ".collector_endpoint: must be a path starting with /, not \"api/v2/spans\"");
    tracing("", """
        collector_cluster: zipkin
        collector_endpoint: /api/v2/spans
        """).rejects(ZIPKIN + ".collector_endpoint_version: Zipkin API v1 is not available (Envoy refuses it too): "
        + "set HTTP_JSON");
    tracing("", """
        collector_cluster: zipkin
        collector_endpoint: /api/v2/spans
        collector_endpoint_version: HTTP_PROTO
        """).rejects(ZIPKIN + ".collector_endpoint_version: HTTP_PROTO is not supported (only HTTP_JSON)");
    tracing("", VALID_ZIPKIN + "split_spans_for_request: true\n").rejects(ZIPKIN
        + ".split_spans_for_request: is not supported: set the connection manager's tracing.spawn_upstream_span");
    BootstrapYaml.minimal().hcm("tracing: {random_sampling: {value: 5}}")
        .rejects(TRACING + ".provider: provider is required");
  }

  private static BootstrapYaml otel(String fields) {
    return BootstrapYaml.minimal().clusters(COLLECTOR).hcm("""
        tracing:
          provider:
            name: envoy.tracers.opentelemetry
            typed_config:
              "@type": type.googleapis.com/envoy.config.trace.v3.OpenTelemetryConfig
        %s
        """.formatted(fields.stripIndent().indent(6).stripTrailing()));
  }

  @Test
  void openTelemetryOverHttp() throws Exception {
    TracingConfig t = translate(otel("""
        service_name: edge
        http_service:
          http_uri: {uri: "http://otel:4318/v1/traces", cluster: zipkin, timeout: 2s}
        """));
    assertThat(t.provider()).isEqualTo(new TracingConfig.OpenTelemetry(
        new TracingConfig.OtlpHttp("zipkin", "/v1/traces", java.time.Duration.ofSeconds(2)), "edge"));
    assertThat(t.operationName()).isEqualTo(TracingConfig.OperationName.INGRESS);
    assertThat(((TracingConfig.OpenTelemetry) translate(otel("""
        http_service:
          http_uri: {uri: "http://otel", cluster: zipkin, timeout: 1s}
        """)).provider()).serviceName()).isEqualTo("unknown_service:envoy");
    otel("service_name: edge").rejects(TRACING + ".provider.typed_config.http_service: "
        + "http_service or grpc_service is required");
    otel("""
        http_service:
          http_uri: {uri: "http://otel/v1/traces", cluster: nowhere, timeout: 1s}
        """).rejects(TRACING + ".provider.typed_config.http_service.http_uri.cluster: unknown cluster \"nowhere\"");
    otel("""
        http_service:
          http_uri: {uri: "https://otel/v1/traces", cluster: zipkin, timeout: 1s}
        """).rejects(TRACING + ".provider.typed_config.http_service.http_uri.uri: must be an http:// URI, not "
        + "\"https://otel/v1/traces\"");
    otel("""
        http_service:
          http_uri: {uri: "http://otel/v1/traces", cluster: zipkin, timeout: 1s}
          request_headers_to_add: [{header: {key: a, value: b}}]
        """).rejects(TRACING + ".provider.typed_config.http_service.request_headers_to_add: "
        + "request_headers_to_add is not supported");
  }

  @Test
  void openTelemetryOverGrpcToAnEnvoyGrpcCluster() throws Exception {
    // The form of Envoy's own examples.
    TracingConfig t = translate(otel("""
        grpc_service:
          envoy_grpc: {cluster_name: zipkin}
          timeout: 0.250s
          initial_metadata: [{key: X-Tenant, value: edge}]
        service_name: edge
        """));
    assertThat(t.provider()).isEqualTo(new TracingConfig.OpenTelemetry(new TracingConfig.OtlpGrpc(
        new GrpcServiceConfig("zipkin", "zipkin", java.util.Optional.of(java.time.Duration.ofMillis(250)),
            List.of(new GrpcServiceConfig.Metadata("x-tenant", "edge")))), "edge"));
    assertThat(((TracingConfig.OtlpGrpc) ((TracingConfig.OpenTelemetry) translate(otel("""
        grpc_service: {envoy_grpc: {cluster_name: zipkin, authority: otel.local}}
        """)).provider()).export()).service()).isEqualTo(
        new GrpcServiceConfig("zipkin", "otel.local", java.util.Optional.empty(), List.of()));

    String grpc = TRACING + ".provider.typed_config.grpc_service";
    otel("""
        grpc_service: {envoy_grpc: {cluster_name: nowhere}, timeout: 1s}
        """).rejects(grpc + ".envoy_grpc.cluster_name: unknown cluster \"nowhere\" (no cluster of that name is configured)");
    otel("""
        grpc_service: {timeout: 1s}
        """).rejects(grpc + ".envoy_grpc: envoy_grpc is required");
    otel("""
        grpc_service: {google_grpc: {target_uri: "127.0.0.1:4317", stat_prefix: otel}}
        """).rejects(grpc + ".google_grpc: google_grpc is not supported (use envoy_grpc with a cluster of the edge)");
    otel("""
        grpc_service: {envoy_grpc: {cluster_name: zipkin}, timeout: -1s}
        """).rejects(grpc + ".timeout: must not be negative");
    otel("""
        grpc_service: {envoy_grpc: {cluster_name: zipkin}, retry_policy: {num_retries: 2}}
        """).rejects(grpc + ".retry_policy: retry_policy is not supported");
    otel("""
        grpc_service: {envoy_grpc: {cluster_name: zipkin}}
        http_service:
          http_uri: {uri: "http://otel/v1/traces", cluster: zipkin, timeout: 1s}
        """).rejects(TRACING + ".provider.typed_config.http_service: http_service and grpc_service cannot both be set "
        + "(one exporter)");
  }

  @Test
  void anOutboundListenerMakesEgressSpans() throws Exception {
    TracingConfig zipkin = tracing("", VALID_ZIPKIN).listener("traffic_direction: OUTBOUND\n").translate()
        .listeners().get(0).hcm().tracing().orElseThrow();
    assertThat(zipkin.operationName()).isEqualTo(TracingConfig.OperationName.EGRESS);
    TracingConfig otlp = otel("""
        grpc_service: {envoy_grpc: {cluster_name: zipkin}, timeout: 0.250s}
        """).listener("traffic_direction: OUTBOUND\n").translate().listeners().get(0).hcm().tracing().orElseThrow();
    assertThat(otlp.operationName()).isEqualTo(TracingConfig.OperationName.EGRESS);
    assertThat(translate(tracing("", VALID_ZIPKIN).listener("traffic_direction: INBOUND\n")).operationName())
        .isEqualTo(TracingConfig.OperationName.INGRESS);
    assertThat(translate(tracing("", VALID_ZIPKIN)).operationName()).isEqualTo(TracingConfig.OperationName.INGRESS);
  }

  @Test
  void aRouteDecoratorNamesTheSpan() throws Exception {
    Route r = BootstrapYaml.minimal().routes("""
        - match: {prefix: "/"}
          route: {cluster: backend}
          decorator: {operation: checkout}
        - match: {prefix: "/quiet"}
          route: {cluster: backend}
          decorator: {operation: quiet, propagate: false}
        """).translate().listeners().get(0).hcm().routeConfig().virtualHosts().get(0).routes().get(0);
    assertThat(r.decorator()).contains(new Route.Decorator("checkout", true));
    Route quiet = BootstrapYaml.minimal().routes("""
        - match: {prefix: "/quiet"}
          route: {cluster: backend}
          decorator: {operation: quiet, propagate: false}
        """).translate().listeners().get(0).hcm().routeConfig().virtualHosts().get(0).routes().get(0);
    assertThat(quiet.decorator()).contains(new Route.Decorator("quiet", false));
    BootstrapYaml.minimal().routes("""
        - match: {prefix: "/"}
          route: {cluster: backend}
          decorator: {propagate: true}
        """).rejects(BootstrapYaml.ROUTE + ".decorator.operation: operation is required");
  }
}
