package io.spillway.edge.server;

import io.netty.channel.EventLoop;
import io.netty.handler.ssl.SslContext;
import io.spillway.edge.accesslog.AccessLogManager;
import io.spillway.edge.accesslog.AccessLogs;
import io.spillway.edge.admission.AdmissionController;
import io.spillway.edge.authz.grpc.GrpcAuthorizationClients;
import io.spillway.edge.rls.grpc.GrpcRateLimitClients;
import io.spillway.edge.config.FilterChainConfig;
import io.spillway.edge.config.HttpConnectionManagerConfig;
import io.spillway.edge.config.ListenerConfig;
import io.spillway.edge.filters.HttpFilterRegistry;
import io.spillway.edge.guard.GuardRegistry;
import io.spillway.edge.http.DrainSignal;
import io.spillway.edge.http.HcmStats;
import io.spillway.edge.http.HttpConnectionManager;
import io.spillway.edge.http.OverloadHooks;
import io.spillway.edge.http.filter.FilterContext;
import io.spillway.edge.http2.Http2CodecStats;
import io.spillway.edge.listener.Listener;
import io.spillway.edge.listener.ListenerChains;
import io.spillway.edge.listener.ListenerOverload;
import io.spillway.edge.listener.ListenerStats;
import io.spillway.edge.router.RouteTable;
import io.spillway.edge.runtime.Runtime;
import io.spillway.edge.stats.Scope;
import io.spillway.edge.tcp.TcpProxyFactory;
import io.spillway.edge.tcp.TcpProxyStats;
import io.spillway.edge.upstream.ClusterManager;
import io.spillway.edge.upstream.Worker;
import java.util.Map;
import java.util.function.LongSupplier;
import javax.net.ssl.SSLException;

/**
 * Builds a listener's run-time parts from its configuration on the control path: the connection
 * manager with its filter chain, the filter chains' TLS contexts and TCP proxies, the stats and
 * access logs. Used for the bootstrap's listeners and for every LDS update; holds only what the
 * server had already made when its workers started.
 */
final class ListenerAssembler {

  /** What every listener's parts are built from; all made before the first listener. */
  record Parts(Scope root, Map<EventLoop, Worker> workers, ClusterManager clusters, GuardRegistry guards,
      AdmissionController admission, io.spillway.edge.filters.policylimit.PolicyRateLimits rateLimits, DrainSignal drain, OverloadHooks httpOverload,
      ListenerOverload listenerOverload, AccessLogManager accessLogs, GrpcAuthorizationClients authorizationClients,
      GrpcRateLimitClients rateLimitClients, Runtime runtime, LongSupplier nanoClock,
      java.util.function.BooleanSupplier healthCheckFailed, String localCluster,
      io.spillway.edge.tracing.Tracers tracers) {}

  private final Parts parts;

  ListenerAssembler(Parts parts) {
    this.parts = parts;
  }

  /**
   * A listener with its own connection manager, not yet bound. The connection manager serves
   * {@code routes} until RDS (when the listener uses it) publishes others.
   */
  Listener listener(ListenerConfig lc, RouteTable routes) {
    return new Listener(lc, connectionManager(lc, routes), chains(lc), new ListenerStats(listenerScope(lc)),
        parts.workers(), parts.listenerOverload(), accessLogs(lc));
  }

  /** The listener's filter chains for run time: each chain's TLS context and TCP proxy. */
  ListenerChains chains(ListenerConfig lc) {
    Scope root = parts.root();
    return ListenerChains.build(lc, chain -> sslContext(lc, chain),
        tcp -> new TcpProxyFactory(tcp, new TcpProxyStats(root.taggedScope("tcp", tcp.statPrefix(), "envoy_tcp_prefix")),
            parts.clusters(), parts.nanoClock()),
        root.scope("tls_inspector"), listenerScope(lc));
  }

  /** The listener's connection manager, or null when every chain is a TCP proxy. */
  HttpConnectionManager connectionManager(ListenerConfig lc, RouteTable routes) {
    if (!lc.hasHttp()) {
      return null;
    }
    Scope root = parts.root();
    HcmStats hcmStats = new HcmStats(root.taggedScope("http", lc.hcm().statPrefix(), "envoy_http_conn_manager_prefix"),
        new io.spillway.edge.http.Http1CodecStats(root.scope("http1")), new Http2CodecStats(root.scope("http2")));
    var filters = HttpFilterRegistry.chain(new FilterContext(lc.hcm(), hcmStats.scope(), parts.clusters(),
        parts.guards(), parts.admission(), lc.perConnectionBufferLimitBytes(), lc.tls().isPresent(), root,
        parts.nanoClock(), parts.runtime(), parts.authorizationClients(), parts.healthCheckFailed(),
        parts.rateLimitClients(), parts.localCluster(), workersInOrder()), parts.rateLimits());
    var tracer = lc.hcm().tracing()
        .map(t -> parts.tracers().tracer(t, hcmStats.scope(), lc.hcm().useRemoteAddress()))
        .orElse(null);
    return new HttpConnectionManager(lc.hcm(), hcmStats, routes, parts.drain(), lc.tls().isPresent(),
        lc.perConnectionBufferLimitBytes(), parts.httpOverload(), filters,
        parts.accessLogs().compileForConnectionManager(lc.hcm().accessLogs()), parts.runtime()::snapshot, tracer);
  }

  private java.util.List<Worker> workersInOrder() {
    return parts.workers().values().stream().sorted(java.util.Comparator.comparingInt(Worker::index)).toList();
  }

  /**
   * The listener's own access logs (one line per connection), compiled.
   *
   * @throws IllegalArgumentException when a log file cannot be opened
   */
  AccessLogs accessLogs(ListenerConfig lc) {
    return parts.accessLogs().compile(lc.accessLogs());
  }

  private Scope listenerScope(ListenerConfig lc) {
    return parts.root().taggedScope("listener", Listener.statName(lc), "envoy_listener_address");
  }

  /**
   * A filter chain's TLS context, or null for cleartext; unreadable certificates fail with their
   * reason. Refused client certificates are counted under the listener, as Envoy's {@code
   * listener.<address>.ssl.fail_verify_error}, {@code ssl.fail_verify_san} and {@code
   * ssl.fail_verify_cert_hash} (each also a {@code ssl.handshake_error}).
   */
  private SslContext sslContext(ListenerConfig lc, FilterChainConfig chain) {
    if (chain.tls().isEmpty()) {
      return null;
    }
    try {
      // A TCP proxy chain offers its ALPN list as configured; an HTTP chain what its codec speaks.
      Scope listener = listenerScope(lc);
      var failures = new io.spillway.edge.config.PeerTrustManager.Failures(
          listener.counter("ssl.fail_verify_error")::inc, listener.counter("ssl.fail_verify_san")::inc,
          listener.counter("ssl.fail_verify_cert_hash")::inc);
      return TlsContexts.server(chain.tls().get(),
          chain.isHttp() ? lc.hcm().codecType() : HttpConnectionManagerConfig.CodecType.AUTO, failures);
    } catch (SSLException | RuntimeException e) {
      throw new IllegalArgumentException("listener " + lc.name() + ": cannot load its TLS certificate: "
          + e.getMessage(), e);
    }
  }
}
