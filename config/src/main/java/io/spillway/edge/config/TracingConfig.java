package io.spillway.edge.config;

import java.util.List;
import java.util.Objects;

/**
 * The connection manager's {@code tracing}, the supported part. Sampling percentages are kept as
 * Envoy keeps them, in parts per ten thousand ({@code Percent} × 100, a {@code FractionalPercent}
 * over TEN_THOUSAND), and decided against the x-request-id the way Envoy's UUID request id
 * extension does.
 *
 * @param clientSampling {@code client_sampling}: a request with {@code x-client-trace-id} is traced
 *     with this chance (default 100 %)
 * @param randomSampling {@code random_sampling}: any other request is traced with this chance (default 100 %)
 * @param overallSampling {@code overall_sampling}: applied after the two others (default 100 %)
 * @param maxPathTagLength {@code max_path_tag_length}: the {@code http.url} tag's path is cut there (default 256)
 * @param customTags {@code custom_tags}, in order
 * @param spawnUpstreamSpan {@code spawn_upstream_span}: a CLIENT span per upstream try, child of
 *     the downstream span (default false)
 * @param provider {@code provider}: where the spans go
 * @param operationName the listener's {@code traffic_direction}: {@link OperationName#EGRESS} for
 *     {@code OUTBOUND}, else {@link OperationName#INGRESS} (Envoy's {@code Tracing::OperationName})
 */
public record TracingConfig(int clientSampling, int randomSampling, int overallSampling, int maxPathTagLength,
    List<CustomTag> customTags, boolean spawnUpstreamSpan, Provider provider, OperationName operationName) {

  /** 100 % in parts per ten thousand. */
  public static final int ALL = 10_000;
  /** Envoy's default {@code max_path_tag_length}. */
  public static final int DEFAULT_MAX_PATH_TAG_LENGTH = 256;

  public TracingConfig {
    customTags = List.copyOf(customTags);
    Objects.requireNonNull(provider, "provider");
    Objects.requireNonNull(operationName, "operationName");
  }

  /**
   * Which way the connection manager's requests go, from its listener's {@code traffic_direction}
   * (Envoy's {@code Tracing::OperationName}).
   */
  public enum OperationName {
    /** The request comes in to the service behind the edge: a SERVER span named {@code ingress}. */
    INGRESS,
    /**
     * The request goes out from a local service ({@code traffic_direction: OUTBOUND}): a CLIENT
     * span named {@code egress <host>}.
     */
    EGRESS
  }

  /** Where spans are sent: the tracer extension and its config. */
  public sealed interface Provider permits Zipkin, OpenTelemetry {}

  /**
   * {@code envoy.tracers.zipkin} with {@code collector_endpoint_version: HTTP_JSON} (Zipkin API v2 JSON).
   *
   * @param collectorCluster the cluster whose hosts receive the spans
   * @param collectorEndpoint the path spans are POSTed to, e.g. {@code /api/v2/spans}
   * @param collectorHostname the Host of those requests ({@code collector_hostname}, else the cluster's name)
   * @param traceId128Bit new traces get 128-bit ids (default false: 64 bits)
   * @param sharedSpanContext the downstream span continues the caller's span id, Zipkin's shared
   *     span model (default true)
   */
  public record Zipkin(String collectorCluster, String collectorEndpoint, String collectorHostname,
      boolean traceId128Bit, boolean sharedSpanContext) implements Provider {}

  /**
   * {@code envoy.tracers.opentelemetry}: OTLP to a cluster of the edge.
   *
   * @param export {@code http_service} (OTLP/HTTP) or {@code grpc_service} (OTLP/gRPC)
   * @param serviceName {@code service_name}: the spans' resource {@code service.name}
   *     (Envoy's default {@code unknown_service:envoy})
   */
  public record OpenTelemetry(OtlpExport export, String serviceName) implements Provider {
    public OpenTelemetry {
      Objects.requireNonNull(export, "export");
    }
  }

  /** How OTLP spans leave the edge. */
  public sealed interface OtlpExport permits OtlpHttp, OtlpGrpc {}

  /**
   * {@code http_service}: OTLP/HTTP (protobuf) POSTed to a cluster's first host.
   *
   * @param cluster {@code http_service.http_uri.cluster}: the cluster whose hosts receive the spans
   * @param path the path of {@code http_service.http_uri.uri}, e.g. {@code /v1/traces}
   * @param timeout {@code http_service.http_uri.timeout}
   */
  public record OtlpHttp(String cluster, String path, java.time.Duration timeout) implements OtlpExport {}

  /**
   * {@code grpc_service}: OTLP/gRPC ({@code TraceService/Export}) over the edge's gRPC channel to
   * an {@code envoy_grpc} cluster, with the service's {@code initial_metadata} on every call.
   *
   * @param service the {@code grpc_service}; its {@code timeout} is each call's deadline (unset: none)
   */
  public record OtlpGrpc(GrpcServiceConfig service) implements OtlpExport {
    public OtlpGrpc {
      Objects.requireNonNull(service, "service");
    }
  }

  /**
   * One {@code custom_tags} entry: a tag set on every downstream span when its value is not empty.
   *
   * @param tag the tag's name
   * @param source where the value comes from
   * @param name the header or environment variable name ({@link Source#LITERAL}: the value itself)
   * @param defaultValue what a missing header or variable gives
   */
  public record CustomTag(String tag, Source source, String name, String defaultValue) {

    public enum Source {
      /** {@code literal}: the value is {@code name}. */
      LITERAL,
      /** {@code request_header}: the request's first value of the header. */
      REQUEST_HEADER,
      /** {@code environment}: read once, when the configuration is loaded. */
      ENVIRONMENT
    }
  }
}
