package io.spillway.edge.http;

import io.spillway.edge.config.HttpConnectionManagerConfig;
import io.spillway.edge.http2.Http2CodecFactory;
import io.spillway.edge.router.RouteTable;

/**
 * The per-listener factory of HTTP streams (Envoy's HttpConnectionManager filter config): parsed
 * configuration, the compiled route table, stats and the shared services a stream needs. Shared by
 * every connection of its listener on every worker; per-request state lives in
 * {@link HttpStream}.
 */
public final class HttpConnectionManager {
  private final HttpConnectionManagerConfig config;
  private final HcmStats stats;
  private final DrainSignal drain;
  private final boolean tls;
  private final int bufferLimitBytes;
  private final OverloadHooks overload;
  private final java.util.List<io.spillway.edge.http.filter.HttpFilterFactory> filters;
  private final Http2CodecFactory http2Codecs;
  private volatile RouteTable routes;
  private final io.spillway.edge.accesslog.AccessLogs accessLogs;
  private final java.util.function.Supplier<io.spillway.edge.runtime.RuntimeSnapshot> runtime;
  private final PathNormalizer pathNormalizer;
  private final io.spillway.edge.tracing.Tracer tracer;
  private final LocalReplyRewriter localReplies;

  /**
   * @param filters the chain's factories in decoder order, built once for this connection
   *     manager (see {@code HttpFilterRegistry.chain}); the last one is terminal
   */
  public HttpConnectionManager(HttpConnectionManagerConfig config, HcmStats stats, RouteTable routes,
      DrainSignal drain, boolean tls, int bufferLimitBytes, OverloadHooks overload,
      java.util.List<io.spillway.edge.http.filter.HttpFilterFactory> filters) {
    this(config, stats, routes, drain, tls, bufferLimitBytes, overload, filters,
        io.spillway.edge.accesslog.AccessLogs.NONE, () -> io.spillway.edge.runtime.RuntimeSnapshot.EMPTY);
  }

  /**
   * @param filters the chain's factories in decoder order (see {@code HttpFilterRegistry.chain})
   * @param accessLogs the connection manager's {@code access_log}, compiled
   * @param runtime the runtime, for the connection-level keys (premature reset thresholds)
   */
  public HttpConnectionManager(HttpConnectionManagerConfig config, HcmStats stats, RouteTable routes,
      DrainSignal drain, boolean tls, int bufferLimitBytes, OverloadHooks overload,
      java.util.List<io.spillway.edge.http.filter.HttpFilterFactory> filters,
      io.spillway.edge.accesslog.AccessLogs accessLogs,
      java.util.function.Supplier<io.spillway.edge.runtime.RuntimeSnapshot> runtime) {
    this(config, stats, routes, drain, tls, bufferLimitBytes, overload, filters, accessLogs, runtime, null);
  }

  /**
   * @param filters the chain's factories in decoder order (see {@code HttpFilterRegistry.chain})
   * @param accessLogs the connection manager's {@code access_log}, compiled
   * @param runtime the runtime, for the connection-level keys (premature reset thresholds)
   * @param tracer the connection manager's {@code tracing}, or null when it does not trace
   */
  public HttpConnectionManager(HttpConnectionManagerConfig config, HcmStats stats, RouteTable routes,
      DrainSignal drain, boolean tls, int bufferLimitBytes, OverloadHooks overload,
      java.util.List<io.spillway.edge.http.filter.HttpFilterFactory> filters,
      io.spillway.edge.accesslog.AccessLogs accessLogs,
      java.util.function.Supplier<io.spillway.edge.runtime.RuntimeSnapshot> runtime,
      io.spillway.edge.tracing.Tracer tracer) {
    this.tracer = tracer;
    this.accessLogs = accessLogs;
    this.runtime = runtime;
    this.config = config;
    this.stats = stats;
    this.routes = routes;
    this.drain = drain;
    this.tls = tls;
    this.bufferLimitBytes = bufferLimitBytes;
    this.overload = overload;
    this.filters = java.util.List.copyOf(filters);
    // Settled once with the runtime as it stands, as Envoy does when it loads the connection manager.
    this.pathNormalizer = PathNormalizer.resolve(config.pathNormalization(), runtime.get(),
        new java.util.SplittableRandom());
    this.localReplies = LocalReplyRewriter.compile(config.localReply(), runtime);
    this.http2Codecs = Http2CodecFactory.downstream(config.http2(), config.maxRequestHeadersBytes(), bufferLimitBytes,
        config.drainTimeout(), stats.http2);
  }

  /** The tracer of {@code tracing}, or null when the connection manager does not trace. */
  io.spillway.edge.tracing.Tracer tracer() {
    return tracer;
  }

  /** {@code local_reply_config}, compiled: how the replies the edge makes itself are rewritten. */
  LocalReplyRewriter localReplies() {
    return localReplies;
  }

  /** The runtime's latest snapshot. */
  io.spillway.edge.runtime.RuntimeSnapshot runtime() {
    return runtime.get();
  }

  /** normalize_path, merge_slashes and path_with_escaped_slashes_action, with the runtime applied. */
  PathNormalizer pathNormalizer() {
    return pathNormalizer;
  }

  /** The HTTP/2 codec of this connection manager's connections ({@code http2_protocol_options}). */
  Http2CodecFactory http2Codecs() {
    return http2Codecs;
  }

  /** The chain's filter factories, parsed once: inbound admission, then {@code http_filters} in order. */
  public java.util.List<io.spillway.edge.http.filter.HttpFilterFactory> filterFactories() {
    return filters;
  }

  /** Adds one stream's filters, leaving out those its route's {@code typed_per_filter_config} disables. */
  void createFilterChain(FilterChain chain, io.spillway.edge.router.RouteEntry route) {
    for (int i = 0; i < filters.size(); i++) {
      var factory = filters.get(i);
      if (route == null || !route.filterDisabled(factory.name())) {
        factory.createFilters(chain);
      }
    }
  }



  /** Writes a finished stream's access log lines (nothing when the connection manager has none). */
  void logStream(io.spillway.edge.http.filter.StreamInfo info, io.spillway.edge.http.message.RequestHeaders request,
      io.spillway.edge.http.message.ResponseHeaders response, io.netty.handler.codec.http.HttpHeaders trailers,
      java.util.random.RandomGenerator random) {
    if (!accessLogs.isEmpty()) {
      accessLogs.log(new io.spillway.edge.accesslog.LogInput(info, request, response, trailers, random));
    }
  }

  /** The overload manager's state and the handles of the actions that act on HTTP streams. */
  public OverloadHooks overload() {
    return overload;
  }

  public HttpConnectionManagerConfig config() {
    return config;
  }

  public HcmStats stats() {
    return stats;
  }

  /** The route table in force; a request reads it once when its headers arrive. */
  public RouteTable routes() {
    return routes;
  }

  /** Publishes a new route table (RDS, later); requests in flight keep the one they matched. */
  public void setRoutes(RouteTable routes) {
    this.routes = routes;
  }


  public DrainSignal drain() {
    return drain;
  }

  /** Whether the listener terminates TLS (x-forwarded-proto https). */
  public boolean tls() {
    return tls;
  }

  /** The listener's per-connection buffer limit: retry buffer and back-pressure watermark. */
  public int bufferLimitBytes() {
    return bufferLimitBytes;
  }


  /**
   * (Re)arms a connection's max_connection_duration, counted from when it opened and scaled by
   * reduce_timeouts as it stands now; cancels {@code running} first.
   *
   * @return the armed timer, or null when there is no maximum
   */
  java.util.concurrent.ScheduledFuture<?> armMaxConnectionDuration(io.netty.util.concurrent.EventExecutor executor,
      long openedAtNanos, java.util.concurrent.ScheduledFuture<?> running, Runnable expired) {
    if (running != null) {
      running.cancel(false);
    }
    long maxAge = overload().scaled(io.spillway.edge.config.OverloadConfig.TimerType.HTTP_DOWNSTREAM_CONNECTION_MAX,
        config().maxConnectionDuration()).toNanos();
    if (maxAge <= 0) {
      return null;
    }
    return executor.schedule(expired, Math.max(1, openedAtNanos + maxAge - System.nanoTime()),
        java.util.concurrent.TimeUnit.NANOSECONDS);
  }
}
