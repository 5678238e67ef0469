package io.spillway.edge.config;

import io.envoyproxy.envoy.config.trace.v3.ZipkinConfig;
import io.envoyproxy.envoy.extensions.filters.network.http_connection_manager.v3.HttpConnectionManager;
import io.envoyproxy.envoy.type.tracing.v3.CustomTag;
import io.envoyproxy.envoy.type.v3.Percent;
import io.spillway.edge.config.ExtensionRegistry.Category;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.function.Predicate;

/**
 * The connection manager's {@code tracing} → {@link TracingConfig}. The provider must be
 * {@code envoy.tracers.zipkin} with {@code collector_endpoint_version: HTTP_JSON}, or
 * {@code envoy.tracers.opentelemetry} with {@code http_service} or {@code grpc_service}
 * ({@code envoy_grpc}); {@code verbose}, metadata custom tags, {@code google_grpc} and the other
 * providers and endpoint versions are refused with their path.
 */
final class TracingTranslator {

  static final String ZIPKIN = "envoy.tracers.zipkin";
  static final String OPENTELEMETRY = "envoy.tracers.opentelemetry";

  private static final SupportedFields TRACING = SupportedFields.of(HttpConnectionManager.Tracing.getDescriptor(),
      "client_sampling", "random_sampling", "overall_sampling", "max_path_tag_length", "custom_tags", "provider",
      "spawn_upstream_span", "verbose");
  private static final SupportedFields PROVIDER = SupportedFields.of(
      io.envoyproxy.envoy.config.trace.v3.Tracing.Http.getDescriptor(), "name", "typed_config");
  private static final SupportedFields ZIPKIN_FIELDS = SupportedFields.of(ZipkinConfig.getDescriptor(),
      "collector_cluster", "collector_endpoint", "trace_id_128bit", "shared_span_context",
      "collector_endpoint_version", "collector_hostname", "split_spans_for_request");

  private TracingTranslator() {}

  /**
   * @param knowsCluster whether a cluster of that name exists (the collector's)
   * @param operationName from the listener's {@code traffic_direction}
   */
  static TracingConfig translate(HttpConnectionManager.Tracing t, ExtensionRegistry registry,
      Predicate<String> knowsCluster, TracingConfig.OperationName operationName, FieldPath path)
      throws ConfigException {
    TRACING.check(t, path);
    if (t.getVerbose()) {
      throw new ConfigException(path.field("verbose"), "verbose span annotations are not supported");
    }
    int client = percent(t.hasClientSampling(), t.getClientSampling(), path.field("client_sampling"));
    int random = percent(t.hasRandomSampling(), t.getRandomSampling(), path.field("random_sampling"));
    int overall = percent(t.hasOverallSampling(), t.getOverallSampling(), path.field("overall_sampling"));
    int maxPath = ProtoValues.uint32(t.hasMaxPathTagLength(), t.getMaxPathTagLength(),
        path.field("max_path_tag_length"), 0, TracingConfig.DEFAULT_MAX_PATH_TAG_LENGTH);
    List<TracingConfig.CustomTag> tags = customTags(t.getCustomTagsList(), path.field("custom_tags"));
    boolean spawn = t.hasSpawnUpstreamSpan() && t.getSpawnUpstreamSpan().getValue();
    if (!t.hasProvider()) {
      // Envoy would trace with the bootstrap's tracer, which the edge does not have.
      throw new ConfigException(path.field("provider"), "provider is required");
    }
    TracingConfig.Provider provider = provider(t.getProvider(), registry, knowsCluster, path.field("provider"));
    return new TracingConfig(client, random, overall, maxPath, tags, spawn, provider, operationName);
  }

  /** A {@code Percent}, in [0, 100], as parts per ten thousand; unset is 100 %. */
  private static int percent(boolean has, Percent p, FieldPath path) throws ConfigException {
    if (!has) {
      return TracingConfig.ALL;
    }
    double v = p.getValue();
    if (!(v >= 0 && v <= 100)) {
      throw new ConfigException(path.field("value"), "must be in [0, 100], not " + v);
    }
    return (int) Math.round(v * 100);
  }

  private static List<TracingConfig.CustomTag> customTags(List<CustomTag> tags, FieldPath path) throws ConfigException {
    // Envoy keeps them by tag name: a later entry for the same tag replaces an earlier one.
    Map<String, TracingConfig.CustomTag> byTag = new LinkedHashMap<>();
    for (int i = 0; i < tags.size(); i++) {
      FieldPath p = path.index(i);
      CustomTag tag = tags.get(i);
      if (tag.getTag().isEmpty()) {
        throw new ConfigException(p.field("tag"), "tag is required");
      }
      TracingConfig.CustomTag compiled = switch (tag.getTypeCase()) {
        case LITERAL -> {
          if (tag.getLiteral().getValue().isEmpty()) {
            throw new ConfigException(p.field("literal").field("value"), "value is required");
          }
          yield new TracingConfig.CustomTag(tag.getTag(), TracingConfig.CustomTag.Source.LITERAL,
              tag.getLiteral().getValue(), "");
        }
        case ENVIRONMENT -> {
          if (tag.getEnvironment().getName().isEmpty()) {
            throw new ConfigException(p.field("environment").field("name"), "name is required");
          }
          yield new TracingConfig.CustomTag(tag.getTag(), TracingConfig.CustomTag.Source.ENVIRONMENT,
              tag.getEnvironment().getName(), tag.getEnvironment().getDefaultValue());
        }
        case REQUEST_HEADER -> {
          String name = tag.getRequestHeader().getName();
          if (!validHeaderName(name)) {
            throw new ConfigException(p.field("request_header").field("name"),
                "\"" + name + "\" is not a valid header name");
          }
          yield new TracingConfig.CustomTag(tag.getTag(), TracingConfig.CustomTag.Source.REQUEST_HEADER,
              name.toLowerCase(Locale.ROOT), tag.getRequestHeader().getDefaultValue());
        }
        case METADATA -> throw new ConfigException(p.field("metadata"), "metadata custom tags are not supported");
        default -> throw new ConfigException(p, "one of literal, environment or request_header is required");
      };
      byTag.remove(compiled.tag());
      byTag.put(compiled.tag(), compiled);
    }
    return new ArrayList<>(byTag.values());
  }

  private static boolean validHeaderName(String name) {
    if (name.isEmpty()) {
      return false;
    }
    for (int i = 0; i < name.length(); i++) {
      char c = name.charAt(i);
      if (c <= ' ' || c >= 127 || c == ':' && i > 0) {
        return false;
      }
    }
    return true;
  }

  private static final SupportedFields OTEL_FIELDS = SupportedFields.of(
      io.envoyproxy.envoy.config.trace.v3.OpenTelemetryConfig.getDescriptor(), "http_service", "grpc_service",
      "service_name");
  private static final SupportedFields HTTP_SERVICE = SupportedFields.of(
      io.envoyproxy.envoy.config.core.v3.HttpService.getDescriptor(), "http_uri");
  private static final SupportedFields HTTP_URI = SupportedFields.of(
      io.envoyproxy.envoy.config.core.v3.HttpUri.getDescriptor(), "uri", "cluster", "timeout");

  /**
   * {@code OpenTelemetryConfig} with {@code http_service} (OTLP/HTTP) or {@code grpc_service}
   * (OTLP/gRPC, {@code envoy_grpc} only), one of the two.
   */
  private static TracingConfig.OpenTelemetry openTelemetry(io.envoyproxy.envoy.config.trace.v3.OpenTelemetryConfig o,
      Predicate<String> knowsCluster, FieldPath path) throws ConfigException {
    OTEL_FIELDS.check(o, path);
    String service = o.getServiceName().isEmpty() ? "unknown_service:envoy" : o.getServiceName();
    if (o.hasGrpcService()) {
      if (o.hasHttpService()) {
        // Envoy: "OpenTelemetry Tracer cannot have both gRPC and HTTP exporters configured".
        throw new ConfigException(path.field("http_service"),
            "http_service and grpc_service cannot both be set (one exporter)");
      }
      GrpcServiceConfig grpc = GrpcServiceTranslator.envoyGrpc(o.getGrpcService(), knowsCluster,
          path.field("grpc_service"));
      return new TracingConfig.OpenTelemetry(new TracingConfig.OtlpGrpc(grpc), service);
    }
    if (!o.hasHttpService()) {
      throw new ConfigException(path.field("http_service"), "http_service or grpc_service is required");
    }
    FieldPath servicePath = path.field("http_service");
    HTTP_SERVICE.check(o.getHttpService(), servicePath);
    FieldPath uriPath = servicePath.field("http_uri");
    var uri = o.getHttpService().getHttpUri();
    HTTP_URI.check(uri, uriPath);
    if (uri.getCluster().isEmpty()) {
      throw new ConfigException(uriPath.field("cluster"), "cluster is required");
    }
    if (!knowsCluster.test(uri.getCluster())) {
      throw new ConfigException(uriPath.field("cluster"), "unknown cluster \"" + uri.getCluster() + "\"");
    }
    String uriPathAndQuery = pathOf(uri.getUri(), uriPath.field("uri"));
    if (!uri.hasTimeout()) {
      throw new ConfigException(uriPath.field("timeout"), "timeout is required");
    }
    java.time.Duration timeout = ProtoValues.positiveDuration(true, uri.getTimeout(), uriPath.field("timeout"),
        java.time.Duration.ofSeconds(1));
    return new TracingConfig.OpenTelemetry(new TracingConfig.OtlpHttp(uri.getCluster(), uriPathAndQuery, timeout),
        service);
  }

  /** The path of an {@code http://host[:port]/path} URI (the host is the cluster's): {@code /} when it has none. */
  private static String pathOf(String uri, FieldPath path) throws ConfigException {
    java.net.URI parsed;
    try {
      parsed = new java.net.URI(uri);
    } catch (java.net.URISyntaxException e) {
      throw new ConfigException(path, "\"" + uri + "\" is not a URI");
    }
    if (parsed.getScheme() == null || !parsed.getScheme().equals("http") || parsed.getHost() == null) {
      throw new ConfigException(path, "must be an http:// URI, not \"" + uri + "\"");
    }
    String p = parsed.getRawPath() == null || parsed.getRawPath().isEmpty() ? "/" : parsed.getRawPath();
    return parsed.getRawQuery() == null ? p : p + "?" + parsed.getRawQuery();
  }

  private static TracingConfig.Provider provider(io.envoyproxy.envoy.config.trace.v3.Tracing.Http http,
      ExtensionRegistry registry, Predicate<String> knowsCluster, FieldPath path) throws ConfigException {
    PROVIDER.check(http, path);
    String name = registry.select(http.getName(), http.hasTypedConfig(), http.getTypedConfig(), Category.TRACER,
        path).name();
    FieldPath configPath = path.field("typed_config");
    if (name.equals(OPENTELEMETRY)) {
      return openTelemetry(registry.unpack(http.getTypedConfig(),
          io.envoyproxy.envoy.config.trace.v3.OpenTelemetryConfig.class, Category.TRACER, configPath),
          knowsCluster, configPath);
    }
    if (!name.equals(ZIPKIN)) {
      throw new ConfigException(path, name + " is not supported (only " + ZIPKIN + " and " + OPENTELEMETRY + ")");
    }
    ZipkinConfig z = registry.unpack(http.getTypedConfig(), ZipkinConfig.class, Category.TRACER, configPath);
    ZIPKIN_FIELDS.check(z, configPath);
    if (z.getCollectorCluster().isEmpty()) {
      throw new ConfigException(configPath.field("collector_cluster"), "collector_cluster is required");
    }
    if (!knowsCluster.test(z.getCollectorCluster())) {
      throw new ConfigException(configPath.field("collector_cluster"),
          "unknown cluster \"" + z.getCollectorCluster() + "\"");
    }
    if (z.getCollectorEndpoint().isEmpty()) {
      throw new ConfigException(configPath.field("collector_endpoint"), "collector_endpoint is required");
    }
    if (!z.getCollectorEndpoint().startsWith("/")) {
      throw new ConfigException(configPath.field("collector_endpoint"),
          "must be a path starting with /, not \"" + z.getCollectorEndpoint() + "\"");
    }
    switch (z.getCollectorEndpointVersion()) {
      case HTTP_JSON -> { }
      case DEPRECATED_AND_UNAVAILABLE_DO_NOT_USE -> throw new ConfigException(
          configPath.field("collector_endpoint_version"),
          "Zipkin API v1 is not available (Envoy refuses it too): set HTTP_JSON");
      default -> throw new ConfigException(configPath.field("collector_endpoint_version"),
          z.getCollectorEndpointVersion() + " is not supported (only HTTP_JSON)");
    }
    if (z.getSplitSpansForRequest()) {
      throw new ConfigException(configPath.field("split_spans_for_request"),
          "is not supported: set the connection manager's tracing.spawn_upstream_span");
    }
    String host = z.getCollectorHostname().isEmpty() ? z.getCollectorCluster() : z.getCollectorHostname();
    boolean shared = !z.hasSharedSpanContext() || z.getSharedSpanContext().getValue();
    return new TracingConfig.Zipkin(z.getCollectorCluster(), z.getCollectorEndpoint(), host, z.getTraceId128Bit(),
        shared);
  }
}
