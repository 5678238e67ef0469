package io.spillway.edge.admin;

import io.envoyproxy.envoy.config.bootstrap.v3.Bootstrap;
import io.spillway.edge.config.BootstrapLoader;
import io.spillway.edge.config.ClusterConfig;
import io.spillway.edge.config.ConfigException;
import io.spillway.edge.config.EdgeConfig;
import io.spillway.edge.config.HeaderMutations;
import io.spillway.edge.config.HttpConnectionManagerConfig;
import io.spillway.edge.config.ListenerConfig;
import io.spillway.edge.config.RouteConfig;
import io.spillway.edge.config.SocketAddress;
import io.spillway.edge.listener.Listener;
import io.spillway.edge.stats.StatsStore;
import io.spillway.edge.upstream.ClusterManager;
import java.net.InetAddress;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneOffset;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;

/**
 * An {@link AdminContext} for endpoint tests: real stats, a real {@link EdgeConfig} built from the
 * records, a {@link ClusterManager} holding one STATIC cluster (no sockets, no DNS), an unbound
 * listener, a hand-set clock, and state and control calls recorded in plain fields.
 */
final class FakeAdminContext implements AdminContext, AutoCloseable {

  /** The bootstrap the records below describe, plus a TLS key and gRPC credentials to redact. */
  static final String BOOTSTRAP_YAML = """
      node:
        id: edge-1
        cluster: edges
        metadata: {team: core}
      admin:
        address: {socket_address: {address: 127.0.0.1, port_value: 9901}}
      dynamic_resources:
        ads_config:
          api_type: GRPC
          grpc_services:
          - envoy_grpc: {cluster_name: backend}
            initial_metadata:
            - {key: authorization, value: "Bearer ads-token"}
      static_resources:
        listeners:
        - name: listener_0
          address: {socket_address: {address: 0.0.0.0, port_value: 10000}}
          filter_chains:
          - filters:
            - name: envoy.filters.network.http_connection_manager
              typed_config:
                "@type": type.googleapis.com/envoy.extensions.filters.network.http_connection_manager.v3.HttpConnectionManager
                stat_prefix: ingress_http
                route_config:
                  name: local_route
                  virtual_hosts:
                  - name: local
                    domains: ["*"]
                    routes:
                    - match: {prefix: "/"}
                      route: {cluster: backend}
                http_filters:
                - name: envoy.filters.http.router
                  typed_config:
                    "@type": type.googleapis.com/envoy.extensions.filters.http.router.v3.Router
            transport_socket:
              name: envoy.transport_sockets.tls
              typed_config:
                "@type": type.googleapis.com/envoy.extensions.transport_sockets.tls.v3.DownstreamTlsContext
                common_tls_context:
                  tls_certificates:
                  - certificate_chain: {filename: /etc/spillway/cert.pem}
                    private_key: {inline_string: "-----BEGIN PRIVATE KEY-----\\nTOPSECRET\\n-----END PRIVATE KEY-----"}
                  - certificate_chain: {filename: /etc/spillway/cert2.pem}
                    private_key: {filename: /etc/spillway/key2.pem}
        clusters:
        - name: backend
          connect_timeout: 1s
          transport_socket:
            name: envoy.transport_sockets.tls
            typed_config:
              "@type": type.googleapis.com/envoy.extensions.transport_sockets.tls.v3.UpstreamTlsContext
              sni: backend.example
              common_tls_context:
                tls_certificates:
                - certificate_chain: {filename: /etc/spillway/client.pem}
                  private_key: {inline_string: "-----BEGIN PRIVATE KEY-----\\nCLUSTERSECRET\\n-----END PRIVATE KEY-----"}
          load_assignment:
            cluster_name: backend
            endpoints:
            - lb_endpoints:
              - endpoint: {address: {socket_address: {address: 127.0.0.1, port_value: 8080}}}
              - endpoint: {address: {socket_address: {address: 127.0.0.2, port_value: 8081}}}
                load_balancing_weight: 3
      """;

  static final ClusterConfig BACKEND = new ClusterConfig("backend", ClusterConfig.DiscoveryType.STATIC,
      ClusterConfig.LbPolicy.ROUND_ROBIN, 2, Duration.ofSeconds(1), Duration.ofSeconds(5),
      List.of(new ClusterConfig.Endpoint(new SocketAddress("127.0.0.1", 8080), 1),
          new ClusterConfig.Endpoint(new SocketAddress("127.0.0.2", 8081), 3)),
      new ClusterConfig.Thresholds(100, 200, 300, 4), ClusterConfig.UpstreamProtocol.HTTP1, 1024 * 1024, 0,
      Duration.ofHours(1));

  static final ListenerConfig LISTENER = new ListenerConfig("listener_0", new SocketAddress("0.0.0.0", 10000),
      1024 * 1024, false, Optional.empty(), HttpConnectionManagerConfig.defaults("ingress_http",
          HttpConnectionManagerConfig.CodecType.AUTO,
          new RouteConfig("local_route", List.of(), HeaderMutations.NONE, HeaderMutations.NONE)));

  final StatsStore stats = new StatsStore();
  io.spillway.edge.runtime.Runtime runtime = io.spillway.edge.runtime.Runtime.none(stats.rootScope().scope("runtime"));
  final Instant startedAt = Instant.parse("2025-01-01T00:00:00Z");
  Clock clock = Clock.fixed(startedAt, ZoneOffset.UTC);
  EdgeConfig config = new EdgeConfig(new EdgeConfig.NodeInfo("edge-1", "edges", Map.of("team", "core")),
      Optional.of(new EdgeConfig.AdminConfig(new SocketAddress("127.0.0.1", 9901))), List.of(LISTENER),
      Map.of(BACKEND.name(), BACKEND), io.spillway.edge.config.OverloadConfig.disabled());
  final Bootstrap bootstrap;
  final ScheduledExecutorService control = Executors.newSingleThreadScheduledExecutor();
  final ClusterManager clusters;
  final List<Listener> listeners;
  // Volatile and concurrent: AdminServerIT changes them on the admin event loop.
  volatile boolean started = true;
  volatile boolean draining;
  volatile boolean healthCheckFailed;
  final List<Boolean> drainCalls = new CopyOnWriteArrayList<>();
  final List<Duration> exitCalls = new CopyOnWriteArrayList<>();

  FakeAdminContext() {
    try {
      bootstrap = BootstrapLoader.parse(BOOTSTRAP_YAML, BootstrapLoader.Format.YAML);
      listeners = List.of(new Listener(LISTENER, null, null, Map.of(), null, null));
    } catch (ConfigException e) {
      throw new IllegalStateException(e);
    }
    // IP literals only: resolving them never touches DNS.
    clusters = new ClusterManager(stats.rootScope(), 2, control, host -> List.of(InetAddress.getByName(host)), 1L);
    clusters.initialize(config.clusters());
  }

  void advance(Duration d) {
    clock = Clock.fixed(clock.instant().plus(d), ZoneOffset.UTC);
  }

  @Override
  public void close() {
    control.shutdownNow();
  }

  @Override
  public boolean isReady() {
    return started && !draining && !healthCheckFailed;
  }

  @Override
  public boolean isDraining() {
    return draining;
  }

  @Override
  public boolean healthCheckFailed() {
    return healthCheckFailed;
  }

  @Override
  public void setHealthCheckFailed(boolean failed) {
    healthCheckFailed = failed;
  }

  @Override
  public io.spillway.edge.runtime.Runtime runtime() {
    return runtime;
  }

  @Override
  public StatsStore stats() {
    return stats;
  }

  @Override
  public EdgeConfig config() {
    return config;
  }

  @Override
  public Bootstrap bootstrap() {
    return bootstrap;
  }

  @Override
  public ClusterManager clusters() {
    return clusters;
  }

  @Override
  public List<Listener> listeners() {
    return listeners;
  }

  @Override
  public Instant startedAt() {
    return startedAt;
  }

  @Override
  public Clock clock() {
    return clock;
  }

  @Override
  public io.spillway.edge.overload.OverloadDescription overload() {
    return null;
  }

  @Override
  public int concurrency() {
    return 2;
  }

  @Override
  public String transportName() {
    return "nio";
  }

  @Override
  public long activeRequests() {
    return 0;
  }

  @Override
  public void drainListeners(boolean graceful) {
    drainCalls.add(graceful);
    draining = true;
  }

  @Override
  public void exitAfterDrain(Duration drainTime) {
    exitCalls.add(drainTime);
  }

  final java.util.concurrent.atomic.AtomicInteger reopenCalls = new java.util.concurrent.atomic.AtomicInteger();

  @Override
  public void reopenAccessLogs() {
    reopenCalls.incrementAndGet();
  }
}
