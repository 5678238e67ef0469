package io.spillway.edge.config;

import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * Envoy's {@code envoy.filters.network.http_connection_manager}, reduced to the supported subset.
 * A zero duration means "disabled", as in Envoy.
 *
 * @param statPrefix stats live under {@code http.<statPrefix>.*}
 * @param codecType AUTO sniffs the HTTP/2 preface (or uses ALPN under TLS)
 * @param routeConfig the inline route configuration (empty under RDS)
 * @param idleTimeout connection idle timeout (Envoy default 1 h)
 * @param streamIdleTimeout per-stream idle timeout (Envoy default 5 min)
 * @param requestTimeout whole-request receive timeout (default disabled)
 * @param requestHeadersTimeout time to receive the request headers (default disabled)
 * @param maxConnectionDuration close connections after this long (default disabled)
 * @param drainTimeout how long an HTTP/2 connection that was sent GOAWAY may finish its streams (default 5 s)
 * @param maxRequestHeadersBytes limit on the request headers' size (default 60 KiB)
 * @param maxRequestHeadersCount limit on the request header count (default 100)
 * @param useRemoteAddress append the peer address to x-forwarded-for and treat the client as external
 *     (Envoy's default is false; an edge facing the internet sets it true)
 * @param xffNumTrustedHops trusted hops in x-forwarded-for
 * @param generateRequestId generate x-request-id when absent (default true)
 * @param preserveExternalRequestId keep an incoming x-request-id from an untrusted client
 * @param appendLocalOverload add {@code x-envoy-local-overloaded: true} to overload replies
 * @param serverName the {@code server} header value of local replies and responses
 * @param httpFilters {@code http_filters}: the filter chain with each filter's settings, router last
 * @param rdsRouteConfigName the route configuration to take from RDS, or empty when
 *     {@code routeConfig} is inline; with RDS, {@code routeConfig} is empty until RDS delivers it
 * @param http1 {@code http_protocol_options}: what HTTP/1.0 requests get
 * @param http2 {@code http2_protocol_options} (with {@code stream_error_on_invalid_http_message}
 *     folded in): SETTINGS, windows and flood limits of downstream HTTP/2 connections
 * @param accessLogs {@code access_log}: one line per request for each entry whose filter passes
 * @param upgradeConfigs {@code upgrade_configs}: upgrade type (lower case) → enabled; see
 *     {@link #upgradeAllowed}
 * @param pathNormalization {@code normalize_path}, {@code merge_slashes} and
 *     {@code path_with_escaped_slashes_action}: what the connection manager does to {@code :path}
 *     before routing
 * @param headersWithUnderscores {@code common_http_protocol_options.headers_with_underscores_action}:
 *     what happens to a request header whose name contains {@code _}
 * @param tracing {@code tracing}: the spans this connection manager makes, or empty for none
 * @param localReply {@code local_reply_config}: how the replies the edge makes itself are rewritten
 */
public record HttpConnectionManagerConfig(
    String statPrefix,
    CodecType codecType,
    RouteConfig routeConfig,
    Duration idleTimeout,
    Duration streamIdleTimeout,
    Duration requestTimeout,
    Duration requestHeadersTimeout,
    Duration maxConnectionDuration,
    Duration drainTimeout,
    int maxRequestHeadersBytes,
    int maxRequestHeadersCount,
    boolean useRemoteAddress,
    int xffNumTrustedHops,
    boolean generateRequestId,
    boolean preserveExternalRequestId,
    boolean appendLocalOverload,
    String serverName,
    List<HttpFilterConfig> httpFilters,
    Optional<String> rdsRouteConfigName,
    Http1Options http1,
    Http2Options http2,
    List<AccessLogConfig> accessLogs,
    Map<String, Boolean> upgradeConfigs,
    PathNormalization pathNormalization,
    HeadersWithUnderscoresAction headersWithUnderscores,
    Optional<TracingConfig> tracing,
    LocalReplyConfig localReply) {

  public HttpConnectionManagerConfig {
    java.util.Objects.requireNonNull(tracing, "tracing");
    java.util.Objects.requireNonNull(localReply, "localReply");
    java.util.Objects.requireNonNull(pathNormalization, "pathNormalization");
    java.util.Objects.requireNonNull(headersWithUnderscores, "headersWithUnderscores");
    httpFilters = List.copyOf(httpFilters);
    accessLogs = List.copyOf(accessLogs);
    upgradeConfigs = Map.copyOf(upgradeConfigs);
    java.util.Objects.requireNonNull(http1, "http1");
    java.util.Objects.requireNonNull(http2, "http2");
  }

  /** Without {@code local_reply_config}. */
  public HttpConnectionManagerConfig(String statPrefix, CodecType codecType, RouteConfig routeConfig,
      Duration idleTimeout, Duration streamIdleTimeout, Duration requestTimeout, Duration requestHeadersTimeout,
      Duration maxConnectionDuration, Duration drainTimeout, int maxRequestHeadersBytes, int maxRequestHeadersCount,
      boolean useRemoteAddress, int xffNumTrustedHops, boolean generateRequestId, boolean preserveExternalRequestId,
      boolean appendLocalOverload, String serverName, List<HttpFilterConfig> httpFilters,
      Optional<String> rdsRouteConfigName, Http1Options http1, Http2Options http2, List<AccessLogConfig> accessLogs,
      Map<String, Boolean> upgradeConfigs, PathNormalization pathNormalization,
      HeadersWithUnderscoresAction headersWithUnderscores, Optional<TracingConfig> tracing) {
    this(statPrefix, codecType, routeConfig, idleTimeout, streamIdleTimeout, requestTimeout, requestHeadersTimeout,
        maxConnectionDuration, drainTimeout, maxRequestHeadersBytes, maxRequestHeadersCount, useRemoteAddress,
        xffNumTrustedHops, generateRequestId, preserveExternalRequestId, appendLocalOverload, serverName, httpFilters,
        rdsRouteConfigName, http1, http2, accessLogs, upgradeConfigs, pathNormalization, headersWithUnderscores,
        tracing, LocalReplyConfig.NONE);
  }

  /** Without tracing or {@code local_reply_config}. */
  public HttpConnectionManagerConfig(String statPrefix, CodecType codecType, RouteConfig routeConfig,
      Duration idleTimeout, Duration streamIdleTimeout, Duration requestTimeout, Duration requestHeadersTimeout,
      Duration maxConnectionDuration, Duration drainTimeout, int maxRequestHeadersBytes, int maxRequestHeadersCount,
      boolean useRemoteAddress, int xffNumTrustedHops, boolean generateRequestId, boolean preserveExternalRequestId,
      boolean appendLocalOverload, String serverName, List<HttpFilterConfig> httpFilters,
      Optional<String> rdsRouteConfigName, Http1Options http1, Http2Options http2, List<AccessLogConfig> accessLogs,
      Map<String, Boolean> upgradeConfigs, PathNormalization pathNormalization,
      HeadersWithUnderscoresAction headersWithUnderscores) {
    this(statPrefix, codecType, routeConfig, idleTimeout, streamIdleTimeout, requestTimeout, requestHeadersTimeout,
        maxConnectionDuration, drainTimeout, maxRequestHeadersBytes, maxRequestHeadersCount, useRemoteAddress,
        xffNumTrustedHops, generateRequestId, preserveExternalRequestId, appendLocalOverload, serverName, httpFilters,
        rdsRouteConfigName, http1, http2, accessLogs, upgradeConfigs, pathNormalization, headersWithUnderscores,
        Optional.empty(), LocalReplyConfig.NONE);
  }

  /**
   * Whether an HTTP/1.1 upgrade to {@code type} may go ahead on a route whose action lists
   * {@code routeUpgrades} (empty for none), by Envoy's precedence: the route's entry for the type,
   * enabled or not, wins (so a route can enable a type the connection manager does not list);
   * without one the connection manager's entry decides; a type neither lists is refused.
   */
  public boolean upgradeAllowed(String type, Map<String, Boolean> routeUpgrades) {
    String key = type.toLowerCase(java.util.Locale.ROOT);
    Boolean route = routeUpgrades.get(key);
    if (route != null) {
      return route;
    }
    return upgradeConfigs.getOrDefault(key, false);
  }

  /** The chain's extension names, in order. */
  public List<String> filterNames() {
    return httpFilters.stream().map(HttpFilterConfig::extension).toList();
  }

  /** The chain's entry for an extension, when it has one (an extension appears at most once). */
  public Optional<HttpFilterConfig> filter(String extension) {
    return httpFilters.stream().filter(f -> f.extension().equals(extension)).findFirst();
  }

  /**
   * Envoy's {@code Http1ProtocolOptions}, the supported part.
   *
   * @param acceptHttp10 serve HTTP/1.0 requests; false (Envoy's default) answers them 426
   * @param defaultHostForHttp10 the Host an HTTP/1.0 request without one is routed with, or empty
   */
  public record Http1Options(boolean acceptHttp10, String defaultHostForHttp10) {
    /** Envoy's defaults: HTTP/1.0 is refused with 426 Upgrade Required. */
    public static final Http1Options ENVOY_DEFAULTS = new Http1Options(false, "");
  }

  /**
   * How {@code :path} is normalized before routing, in Envoy's order: escaped slashes first, then
   * RFC 3986 normalization, then slash merging.
   *
   * @param normalizePath {@code normalize_path}; empty when unset (Envoy then reads the runtime key
   *     {@code http_connection_manager.normalize_path}, default off)
   * @param mergeSlashes {@code merge_slashes}
   * @param escapedSlashes {@code path_with_escaped_slashes_action}
   */
  public record PathNormalization(Optional<Boolean> normalizePath, boolean mergeSlashes,
      EscapedSlashesAction escapedSlashes) {
    /** Envoy's defaults: nothing changes the path (unless the runtime says so). */
    public static final PathNormalization ENVOY_DEFAULTS =
        new PathNormalization(Optional.empty(), false, EscapedSlashesAction.IMPLEMENTATION_SPECIFIC_DEFAULT);

    public PathNormalization {
      java.util.Objects.requireNonNull(normalizePath, "normalizePath");
      java.util.Objects.requireNonNull(escapedSlashes, "escapedSlashes");
    }
  }

  /**
   * Envoy's {@code HttpConnectionManager.PathWithEscapedSlashesAction}, in its numbering (the
   * ordinal is the proto number, which the runtime key
   * {@code http_connection_manager.path_with_escaped_slashes_action} uses).
   */
  public enum EscapedSlashesAction {
    /** Unset: the runtime key decides, {@link #KEEP_UNCHANGED} without one. */
    IMPLEMENTATION_SPECIFIC_DEFAULT,
    KEEP_UNCHANGED,
    /** 400 when the path holds {@code %2F}, {@code %2f}, {@code %5C} or {@code %5c}. */
    REJECT_REQUEST,
    /** Unescape them and answer 307 with the new path as Location (gRPC: 400). */
    UNESCAPE_AND_REDIRECT,
    /** Unescape them and go on with the new path. */
    UNESCAPE_AND_FORWARD
  }

  /** Envoy's {@code HttpProtocolOptions.HeadersWithUnderscoresAction}. */
  public enum HeadersWithUnderscoresAction {
    ALLOW,
    /** HTTP/1: 400 and the connection closes; HTTP/2: the stream is reset. */
    REJECT_REQUEST,
    /** The header is removed before anything else sees the request. */
    DROP_HEADER
  }

  /** Envoy's HttpConnectionManager.CodecType. */
  public enum CodecType { AUTO, HTTP1, HTTP2 }

  /** Envoy's defaults for everything but the name, routes and codec. */
  public static HttpConnectionManagerConfig defaults(String statPrefix, CodecType codec, RouteConfig routes) {
    return new HttpConnectionManagerConfig(statPrefix, codec, routes,
        Duration.ofHours(1), Duration.ofMinutes(5), Duration.ZERO, Duration.ZERO, Duration.ZERO,
        Duration.ofSeconds(5), 60 * 1024, 100, false, 0, true, false, false,
        "spillway", List.of(HttpFilterConfig.router()), Optional.empty(),
        Http1Options.ENVOY_DEFAULTS, Http2Options.DOWNSTREAM_DEFAULTS, List.of(), Map.of(),
        PathNormalization.ENVOY_DEFAULTS, HeadersWithUnderscoresAction.ALLOW);
  }
}
