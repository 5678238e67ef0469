package io.spillway.edge.config;

import io.envoyproxy.envoy.config.core.v3.Http1ProtocolOptions;
import io.envoyproxy.envoy.config.core.v3.HttpProtocolOptions;
import io.envoyproxy.envoy.extensions.filters.http.buffer.v3.Buffer;
import io.envoyproxy.envoy.extensions.filters.http.cors.v3.Cors;
import io.envoyproxy.envoy.extensions.filters.http.compressor.v3.Compressor;
import io.envoyproxy.envoy.extensions.filters.http.ext_authz.v3.ExtAuthz;
import io.envoyproxy.envoy.extensions.filters.http.local_ratelimit.v3.LocalRateLimit;
import io.envoyproxy.envoy.extensions.filters.http.router.v3.Router;
import io.envoyproxy.envoy.extensions.filters.network.http_connection_manager.v3.HttpConnectionManager;
import io.envoyproxy.envoy.extensions.filters.network.http_connection_manager.v3.HttpFilter;
import io.envoyproxy.envoy.extensions.filters.network.http_connection_manager.v3.Rds;
import io.spillway.edge.config.ExtensionRegistry.Category;
import io.spillway.edge.config.HttpConnectionManagerConfig.CodecType;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;

/**
 * The {@code envoy.filters.network.http_connection_manager} config → {@link HttpConnectionManagerConfig}.
 * Every unset field takes its value from {@link HttpConnectionManagerConfig#defaults}, the one
 * place the defaults live (Envoy's, except the server name). The HTTP filter chain may hold the buffer, ext_authz, local_ratelimit, cors, compressor, fault, jwt_authn, health_check, rbac, header_to_metadata, grpc_web, csrf and decompressor filters (the compressor
 * more than once, one per encoding) and must end with the router. {@code normalize_path},
 * {@code merge_slashes}, {@code path_with_escaped_slashes_action} and
 * {@code headers_with_underscores_action} are taken as they are (the runtime settles their unset
 * values when the connection manager is built); an unknown enum value is refused with its path.
 */
final class HttpConnectionManagerTranslator {

  /** Envoy's upper bound on {@code max_request_headers_kb}. */
  static final int MAX_REQUEST_HEADERS_KB = 8192;

  private static final SupportedFields HCM = SupportedFields.of(HttpConnectionManager.getDescriptor(),
          "codec_type", "stat_prefix", "route_config", "http_filters", "common_http_protocol_options", "server_name",
          "max_request_headers_kb", "stream_idle_timeout", "request_timeout", "request_headers_timeout",
          "drain_timeout", "access_log", "use_remote_address", "xff_num_trusted_hops", "generate_request_id",
          "preserve_external_request_id", "append_local_overload", "normalize_path", "merge_slashes", "rds",
          "http_protocol_options", "http2_protocol_options", "stream_error_on_invalid_http_message",
          "upgrade_configs", "path_with_escaped_slashes_action", "tracing", "local_reply_config");
  private static final SupportedFields HTTP1_OPTIONS = SupportedFields.of(Http1ProtocolOptions.getDescriptor(),
      "accept_http_10", "default_host_for_http_10");
  private static final SupportedFields RDS = SupportedFields.of(Rds.getDescriptor(),
      "config_source", "route_config_name");
  private static final SupportedFields COMMON_HTTP_OPTIONS = SupportedFields.of(HttpProtocolOptions.getDescriptor(),
      "idle_timeout", "max_connection_duration", "max_headers_count", "headers_with_underscores_action");
  private static final SupportedFields HTTP_FILTER = SupportedFields.of(HttpFilter.getDescriptor(),
      "name", "typed_config");
  private static final SupportedFields ROUTER = SupportedFields.of(Router.getDescriptor(), "dynamic_stats");
  private static final SupportedFields BUFFER = SupportedFields.of(Buffer.getDescriptor(), "max_request_bytes");
  /** The CORS filter's config has no fields: its policies come from the routes. */
  private static final SupportedFields CORS = SupportedFields.of(Cors.getDescriptor());
  /** The gRPC-Web filter's config has no fields. */
  private static final SupportedFields GRPC_WEB = SupportedFields.of(
      io.envoyproxy.envoy.extensions.filters.http.grpc_web.v3.GrpcWeb.getDescriptor());
  private static final SupportedFields HEALTH_CHECK = SupportedFields.of(
      io.envoyproxy.envoy.extensions.filters.http.health_check.v3.HealthCheck.getDescriptor(),
      "pass_through_mode", "headers", "cluster_min_healthy_percentages");

  private final ExtensionRegistry registry;
  private final RouteTranslator routes;
  private final boolean adsAvailable;

  HttpConnectionManagerTranslator(ExtensionRegistry registry, RouteTranslator routes) {
    this(registry, routes, false);
  }

  /** @param adsAvailable whether the bootstrap has an ADS stream that can deliver RDS */
  HttpConnectionManagerTranslator(ExtensionRegistry registry, RouteTranslator routes, boolean adsAvailable) {
    this.registry = registry;
    this.routes = routes;
    this.adsAvailable = adsAvailable;
  }

  HttpConnectionManagerConfig translate(HttpConnectionManager hcm, TracingConfig.OperationName operationName,
      FieldPath path) throws ConfigException {
    HCM.check(hcm, path);
    if (hcm.getStatPrefix().isEmpty()) {
      throw new ConfigException(path.field("stat_prefix"), "stat_prefix is required");
    }
    CodecType codec = switch (hcm.getCodecType()) {
      case AUTO -> CodecType.AUTO;
      case HTTP1 -> CodecType.HTTP1;
      case HTTP2 -> CodecType.HTTP2;
      default -> throw new ConfigException(path.field("codec_type"), hcm.getCodecType() + " is not supported");
    };
    Optional<String> rdsName = Optional.empty();
    RouteConfig routeConfig;
    if (hcm.hasRds()) {
      FieldPath rdsPath = path.field("rds");
      Rds rds = hcm.getRds();
      RDS.check(rds, rdsPath);
      if (!adsAvailable) {
        throw new ConfigException(rdsPath, "rds needs dynamic_resources.ads_config (routes come over ADS)");
      }
      ConfigSources.requireAds(rds.hasConfigSource(), rds.getConfigSource(), rdsPath.field("config_source"));
      if (rds.getRouteConfigName().isEmpty()) {
        throw new ConfigException(rdsPath.field("route_config_name"), "route_config_name is required");
      }
      rdsName = Optional.of(rds.getRouteConfigName());
      routeConfig = new RouteConfig(rds.getRouteConfigName(), List.of(), HeaderMutations.NONE, HeaderMutations.NONE);
    } else if (hcm.hasRouteConfig()) {
      routeConfig = routes.translate(hcm.getRouteConfig(), path.field("route_config"));
    } else {
      throw new ConfigException(path.field("route_config"), "route_config or rds is required");
    }
    HttpConnectionManagerConfig defaults =
        HttpConnectionManagerConfig.defaults(hcm.getStatPrefix(), codec, routeConfig);

    Duration idle = defaults.idleTimeout();
    Duration maxConnectionDuration = defaults.maxConnectionDuration();
    int maxHeadersCount = defaults.maxRequestHeadersCount();
    HttpConnectionManagerConfig.HeadersWithUnderscoresAction underscores = defaults.headersWithUnderscores();
    if (hcm.hasCommonHttpProtocolOptions()) {
      FieldPath commonPath = path.field("common_http_protocol_options");
      HttpProtocolOptions common = hcm.getCommonHttpProtocolOptions();
      COMMON_HTTP_OPTIONS.check(common, commonPath);
      idle = ProtoValues.duration(common.hasIdleTimeout(), common.getIdleTimeout(), commonPath.field("idle_timeout"),
          defaults.idleTimeout());
      maxConnectionDuration = ProtoValues.duration(common.hasMaxConnectionDuration(),
          common.getMaxConnectionDuration(), commonPath.field("max_connection_duration"),
          defaults.maxConnectionDuration());
      maxHeadersCount = ProtoValues.uint32(common.hasMaxHeadersCount(), common.getMaxHeadersCount(),
          commonPath.field("max_headers_count"), 1, defaults.maxRequestHeadersCount());
      underscores = headersWithUnderscores(common.getHeadersWithUnderscoresAction(),
          common.getHeadersWithUnderscoresActionValue(),
          commonPath.field("headers_with_underscores_action"));
    }
    Duration streamIdle = ProtoValues.duration(hcm.hasStreamIdleTimeout(), hcm.getStreamIdleTimeout(),
        path.field("stream_idle_timeout"), defaults.streamIdleTimeout());
    Duration requestTimeout = ProtoValues.duration(hcm.hasRequestTimeout(), hcm.getRequestTimeout(),
        path.field("request_timeout"), defaults.requestTimeout());
    Duration requestHeadersTimeout = ProtoValues.duration(hcm.hasRequestHeadersTimeout(),
        hcm.getRequestHeadersTimeout(), path.field("request_headers_timeout"), defaults.requestHeadersTimeout());
    Duration drain = ProtoValues.duration(hcm.hasDrainTimeout(), hcm.getDrainTimeout(), path.field("drain_timeout"),
        defaults.drainTimeout());
    int headersBytes = defaults.maxRequestHeadersBytes();
    if (hcm.hasMaxRequestHeadersKb()) {
      int kb = ProtoValues.uint32(hcm.getMaxRequestHeadersKb().getValue(), path.field("max_request_headers_kb"), 1);
      if (kb > MAX_REQUEST_HEADERS_KB) {
        throw new ConfigException(path.field("max_request_headers_kb"), "must be at most " + MAX_REQUEST_HEADERS_KB);
      }
      headersBytes = kb * 1024;
    }
    HttpConnectionManagerConfig.PathNormalization pathNormalization = new HttpConnectionManagerConfig.PathNormalization(
        hcm.hasNormalizePath() ? Optional.of(hcm.getNormalizePath().getValue()) : Optional.empty(),
        hcm.getMergeSlashes(),
        escapedSlashes(hcm.getPathWithEscapedSlashesAction(), hcm.getPathWithEscapedSlashesActionValue(), path.field("path_with_escaped_slashes_action")));
    List<AccessLogConfig> accessLogs =
        AccessLogTranslator.translate(hcm.getAccessLogList(), path.field("access_log"), registry);
    List<HttpFilterConfig> filters = httpFilters(hcm.getHttpFiltersList(), path.field("http_filters"));
    int xffHops = ProtoValues.uint32(hcm.getXffNumTrustedHops(), path.field("xff_num_trusted_hops"), 0);
    boolean useRemoteAddress = hcm.hasUseRemoteAddress()
        ? hcm.getUseRemoteAddress().getValue() : defaults.useRemoteAddress();
    boolean generateRequestId = hcm.hasGenerateRequestId()
        ? hcm.getGenerateRequestId().getValue() : defaults.generateRequestId();
    String serverName = hcm.getServerName().isEmpty() ? defaults.serverName() : hcm.getServerName();
    Optional<TracingConfig> tracing = hcm.hasTracing()
        ? Optional.of(TracingTranslator.translate(hcm.getTracing(), registry, routes::knowsCluster, operationName,
            path.field("tracing")))
        : Optional.empty();
    LocalReplyConfig localReply = hcm.hasLocalReplyConfig()
        ? LocalReplyTranslator.translate(hcm.getLocalReplyConfig(), path.field("local_reply_config"))
        : LocalReplyConfig.NONE;
    return new HttpConnectionManagerConfig(hcm.getStatPrefix(), codec, routeConfig, idle, streamIdle,
        requestTimeout, requestHeadersTimeout, maxConnectionDuration, drain, headersBytes, maxHeadersCount,
        useRemoteAddress, xffHops, generateRequestId,
        hcm.getPreserveExternalRequestId(), hcm.getAppendLocalOverload(), serverName, filters, rdsName,
        http1(hcm, path.field("http_protocol_options")), http2(hcm, path), accessLogs,
        UpgradeConfigTranslator.connectionManager(hcm.getUpgradeConfigsList(), path.field("upgrade_configs")),
        pathNormalization, underscores, tracing, localReply);
  }

  private static HttpConnectionManagerConfig.EscapedSlashesAction escapedSlashes(
      HttpConnectionManager.PathWithEscapedSlashesAction action, int number, FieldPath path) throws ConfigException {
    return switch (action) {
      case IMPLEMENTATION_SPECIFIC_DEFAULT -> HttpConnectionManagerConfig.EscapedSlashesAction.IMPLEMENTATION_SPECIFIC_DEFAULT;
      case KEEP_UNCHANGED -> HttpConnectionManagerConfig.EscapedSlashesAction.KEEP_UNCHANGED;
      case REJECT_REQUEST -> HttpConnectionManagerConfig.EscapedSlashesAction.REJECT_REQUEST;
      case UNESCAPE_AND_REDIRECT -> HttpConnectionManagerConfig.EscapedSlashesAction.UNESCAPE_AND_REDIRECT;
      case UNESCAPE_AND_FORWARD -> HttpConnectionManagerConfig.EscapedSlashesAction.UNESCAPE_AND_FORWARD;
      default -> throw new ConfigException(path, "unknown value " + number
          + " (IMPLEMENTATION_SPECIFIC_DEFAULT, KEEP_UNCHANGED, REJECT_REQUEST, UNESCAPE_AND_REDIRECT or UNESCAPE_AND_FORWARD)");
    };
  }

  private static HttpConnectionManagerConfig.HeadersWithUnderscoresAction headersWithUnderscores(
      HttpProtocolOptions.HeadersWithUnderscoresAction action, int number, FieldPath path) throws ConfigException {
    return switch (action) {
      case ALLOW -> HttpConnectionManagerConfig.HeadersWithUnderscoresAction.ALLOW;
      case REJECT_REQUEST -> HttpConnectionManagerConfig.HeadersWithUnderscoresAction.REJECT_REQUEST;
      case DROP_HEADER -> HttpConnectionManagerConfig.HeadersWithUnderscoresAction.DROP_HEADER;
      default -> throw new ConfigException(path, "unknown value " + number + " (ALLOW, REJECT_REQUEST or DROP_HEADER)");
    };
  }

  /**
   * {@code http2_protocol_options}, with {@code stream_error_on_invalid_http_message} (which, for
   * HTTP/1, changes nothing: a request that cannot be parsed always gets 400 and a close).
   */
  private static Http2Options http2(HttpConnectionManager hcm, FieldPath path) throws ConfigException {
    Optional<Boolean> streamError = hcm.hasStreamErrorOnInvalidHttpMessage()
        ? Optional.of(hcm.getStreamErrorOnInvalidHttpMessage().getValue()) : Optional.empty();
    return Http2OptionsTranslator.downstream(hcm.getHttp2ProtocolOptions(), path.field("http2_protocol_options"),
        streamError);
  }

  private static HttpConnectionManagerConfig.Http1Options http1(HttpConnectionManager hcm, FieldPath path)
      throws ConfigException {
    if (!hcm.hasHttpProtocolOptions()) {
      return HttpConnectionManagerConfig.Http1Options.ENVOY_DEFAULTS;
    }
    Http1ProtocolOptions options = hcm.getHttpProtocolOptions();
    HTTP1_OPTIONS.check(options, path);
    String host = options.getDefaultHostForHttp10();
    if (!host.isEmpty() && !options.getAcceptHttp10()) {
      throw new ConfigException(path.field("default_host_for_http_10"), "needs accept_http_10: true");
    }
    for (int i = 0; i < host.length(); i++) {
      char c = host.charAt(i);
      if (c <= ' ' || c >= 127) {
        throw new ConfigException(path.field("default_host_for_http_10"), "\"" + host + "\" is not a valid host");
      }
    }
    return new HttpConnectionManagerConfig.Http1Options(options.getAcceptHttp10(), host);
  }

  /** The HTTP filter chain: each entry's extension, name and translated settings, router last. */
  private List<HttpFilterConfig> httpFilters(List<HttpFilter> filters, FieldPath path) throws ConfigException {
    List<HttpFilterConfig> chain = new ArrayList<>();
    List<String> names = new ArrayList<>();
    java.util.Set<String> entryNames = new java.util.HashSet<>();
    for (int i = 0; i < filters.size(); i++) {
      FieldPath filterPath = path.index(i);
      HttpFilter filter = filters.get(i);
      HTTP_FILTER.check(filter, filterPath);
      String name = extensionName(filter, filterPath);
      if (!names.isEmpty() && names.get(names.size() - 1).equals(ExtensionRegistry.ROUTER)) {
        throw new ConfigException(filterPath, name + " comes after " + ExtensionRegistry.ROUTER
            + ", which must be the last filter");
      }
      String entryName = filter.getName().isEmpty() ? name : filter.getName();
      // A filter may run several times under names of its own (two Lua scripts, two RBAC
      // policies): per-route configuration and disabling address an entry by its name, so a
      // name may appear once. The compressor is the exception Envoy's own examples use: one entry
      // per encoding, all of them often named envoy.filters.http.compressor; the decompressor likewise.
      if (entryNames.contains(entryName) && !name.equals(ExtensionRegistry.COMPRESSOR)
          && !name.equals(ExtensionRegistry.DECOMPRESSOR)) {
        throw new ConfigException(filterPath.field("name"), "\"" + entryName + "\" names an earlier filter too;"
            + " give each entry of the chain its own name");
      }
      chain.add(new HttpFilterConfig(name, entryName, settings(name, entryName, filter, filterPath)));
      names.add(name);
      entryNames.add(entryName);
    }
    if (names.isEmpty() || !names.get(names.size() - 1).equals(ExtensionRegistry.ROUTER)) {
      throw new ConfigException(path, ExtensionRegistry.ROUTER + " is required as the last filter");
    }
    return chain;
  }

  /**
   * One filter's {@code typed_config}, translated by its extension (the global rate limit filter,
   * {@code ratelimit}, by {@link RateLimitTranslator#globalRateLimit} like the local one).
   */
  private HttpFilterConfig.Settings settings(String extension, String entryName, HttpFilter filter,
      FieldPath filterPath) throws ConfigException {
    FieldPath configPath = filterPath.field("typed_config");
    return switch (extension) {
      case ExtensionRegistry.ROUTER -> {
        if (ExtensionRegistry.carriesConfig(filter.hasTypedConfig(), filter.getTypedConfig())) {
          ROUTER.check(registry.unpack(filter.getTypedConfig(), Router.class, Category.HTTP_FILTER, configPath),
              configPath);
        }
        yield HttpFilterConfig.NoSettings.INSTANCE;
      }
      case ExtensionRegistry.BUFFER -> {
        Buffer buffer = registry.unpack(filter.getTypedConfig(), Buffer.class, Category.HTTP_FILTER, configPath);
        BUFFER.check(buffer, configPath);
        if (!buffer.hasMaxRequestBytes()) {
          throw new ConfigException(configPath.field("max_request_bytes"), "max_request_bytes is required");
        }
        yield new HttpFilterConfig.Buffer(Integer.toUnsignedLong(ProtoValues.uint32(
            buffer.getMaxRequestBytes().getValue(), configPath.field("max_request_bytes"), 1)));
      }
      case ExtensionRegistry.EXT_AUTHZ -> ExtAuthzTranslator.translate(
          registry.unpack(filter.getTypedConfig(), ExtAuthz.class, Category.HTTP_FILTER, configPath),
          entryName, routes::knowsCluster, configPath);
      case ExtensionRegistry.LOCAL_RATELIMIT -> RateLimitTranslator.localRateLimit(
          registry.unpack(filter.getTypedConfig(), LocalRateLimit.class, Category.HTTP_FILTER, configPath),
          configPath, false);
      case ExtensionRegistry.RATELIMIT -> RateLimitTranslator.globalRateLimit(
          registry.unpack(filter.getTypedConfig(), io.envoyproxy.envoy.extensions.filters.http.ratelimit.v3.RateLimit.class,
              Category.HTTP_FILTER, configPath), entryName, routes::knowsCluster, configPath);
      case ExtensionRegistry.CORS -> {
        if (ExtensionRegistry.carriesConfig(filter.hasTypedConfig(), filter.getTypedConfig())) {
          CORS.check(registry.unpack(filter.getTypedConfig(), Cors.class, Category.HTTP_FILTER, configPath),
              configPath);
        }
        yield HttpFilterConfig.NoSettings.INSTANCE;
      }
      case ExtensionRegistry.GRPC_WEB -> {
        if (ExtensionRegistry.carriesConfig(filter.hasTypedConfig(), filter.getTypedConfig())) {
          GRPC_WEB.check(registry.unpack(filter.getTypedConfig(),
              io.envoyproxy.envoy.extensions.filters.http.grpc_web.v3.GrpcWeb.class, Category.HTTP_FILTER, configPath),
              configPath);
        }
        yield HttpFilterConfig.NoSettings.INSTANCE;
      }
      case ExtensionRegistry.COMPRESSOR -> CompressorTranslator.translate(
          registry.unpack(filter.getTypedConfig(), Compressor.class, Category.HTTP_FILTER, configPath),
          registry, configPath);
      case ExtensionRegistry.DECOMPRESSOR -> DecompressorTranslator.translate(registry.unpack(filter.getTypedConfig(),
          io.envoyproxy.envoy.extensions.filters.http.decompressor.v3.Decompressor.class, Category.HTTP_FILTER,
          configPath), registry, configPath);
      case ExtensionRegistry.CSRF -> CsrfTranslator.translate(registry.unpack(filter.getTypedConfig(),
          io.envoyproxy.envoy.extensions.filters.http.csrf.v3.CsrfPolicy.class, Category.HTTP_FILTER, configPath),
          configPath);
      case ExtensionRegistry.HEALTH_CHECK -> healthCheck(registry.unpack(filter.getTypedConfig(),
          io.envoyproxy.envoy.extensions.filters.http.health_check.v3.HealthCheck.class, Category.HTTP_FILTER,
          configPath), configPath);
      case ExtensionRegistry.FAULT -> FaultTranslator.translate(registry.unpack(filter.getTypedConfig(),
          io.envoyproxy.envoy.extensions.filters.http.fault.v3.HTTPFault.class, Category.HTTP_FILTER, configPath),
          configPath);
      case ExtensionRegistry.LUA -> LuaTranslator.translate(registry.unpack(filter.getTypedConfig(),
          io.envoyproxy.envoy.extensions.filters.http.lua.v3.Lua.class, Category.HTTP_FILTER, configPath), configPath);
      case ExtensionRegistry.HEADER_TO_METADATA -> HeaderToMetadataTranslator.translate(registry.unpack(
          filter.getTypedConfig(), io.envoyproxy.envoy.extensions.filters.http.header_to_metadata.v3.Config.class,
          Category.HTTP_FILTER, configPath), configPath, false);
      case ExtensionRegistry.RBAC -> RbacTranslator.translate(registry.unpack(filter.getTypedConfig(),
          io.envoyproxy.envoy.extensions.filters.http.rbac.v3.RBAC.class, Category.HTTP_FILTER, configPath),
          configPath);
      case ExtensionRegistry.JWT_AUTHN -> JwtAuthnTranslator.translate(registry.unpack(filter.getTypedConfig(),
          io.envoyproxy.envoy.extensions.filters.http.jwt_authn.v3.JwtAuthentication.class, Category.HTTP_FILTER,
          configPath), routes::knowsCluster, configPath);
      default -> throw new ConfigException(filterPath, extension + " is not supported");
    };
  }

  /**
   * {@code HealthCheck}: {@code pass_through_mode} and {@code headers} are required (Envoy's
   * validation); {@code cache_time} is refused (pass-through answers are not cached).
   */
  private static HealthCheckFilterConfig healthCheck(
      io.envoyproxy.envoy.extensions.filters.http.health_check.v3.HealthCheck h, FieldPath path) throws ConfigException {
    HEALTH_CHECK.check(h, path);
    if (!h.hasPassThroughMode()) {
      throw new ConfigException(path.field("pass_through_mode"), "pass_through_mode is required");
    }
    if (h.getHeadersCount() == 0) {
      throw new ConfigException(path.field("headers"), "at least one header matcher is required");
    }
    java.util.List<Route.HeaderMatch> headers = new java.util.ArrayList<>();
    for (int i = 0; i < h.getHeadersCount(); i++) {
      headers.add(MatchTranslator.header(h.getHeaders(i), path.field("headers").index(i)));
    }
    java.util.Map<String, Double> minHealthy = new java.util.TreeMap<>();
    for (var e : h.getClusterMinHealthyPercentagesMap().entrySet()) {
      double v = e.getValue().getValue();
      if (!(v >= 0 && v <= 100)) {
        throw new ConfigException(path.field("cluster_min_healthy_percentages").key(e.getKey()).field("value"),
            "must be in [0, 100], not " + v);
      }
      minHealthy.put(e.getKey(), v);
    }
    return new HealthCheckFilterConfig(h.getPassThroughMode().getValue(), headers, minHealthy);
  }

  /** The extension a filter entry names, chosen as {@link ExtensionRegistry#select} chooses. */
  private String extensionName(HttpFilter filter, FieldPath path) throws ConfigException {
    return registry.select(filter.getName(), filter.hasTypedConfig(), filter.getTypedConfig(), Category.HTTP_FILTER,
        path).name();
  }
}
