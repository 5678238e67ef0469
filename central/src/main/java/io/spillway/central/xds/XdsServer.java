package io.spillway.central.xds;

import io.grpc.BindableService;
import io.grpc.Server;
import io.grpc.ServerInterceptors;
import io.grpc.netty.shaded.io.grpc.netty.NettyServerBuilder;
import io.prometheus.metrics.model.registry.PrometheusRegistry;
import io.spillway.central.edges.EdgeGauges;
import io.spillway.central.edges.EdgeStore;
import io.spillway.central.policy.PolicyStore;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.InetSocketAddress;
import java.time.Clock;
import java.time.Duration;
import java.util.Collection;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Central's xDS server: Envoy's aggregated discovery service (State of the World and Delta) on
 * grpc-java, serving each edge its clusters, endpoints, listeners and route configurations (from
 * an {@link EdgeResourceSource}) and its overload policy (from the {@link PolicyStore}), pushed
 * whenever a change is published on the {@link ChangeBus}, and re-sent as a safety net every
 * re-sync interval. Streams are authenticated against the edge registry. The edges' gauge reports
 * ({@link ReportService}) arrive on the same server.
 */
public final class XdsServer implements AutoCloseable {

  private static final Logger log = LoggerFactory.getLogger(XdsServer.class);
  private static final int MAX_INBOUND_MESSAGE_BYTES = 4 * 1024 * 1024;
  private static final int PUSH_THREADS = 4;

  /**
   * How the server runs.
   *
   * @param address the address to bind
   * @param port the port, 0 for any free port
   * @param resyncInterval how often every connected edge is re-read and sent what differs (the
   *     safety net behind the change bus)
   */
  public record Settings(String address, int port, Duration resyncInterval) {
    /** Checks the values. */
    public Settings {
      Objects.requireNonNull(address, "address");
      if (port < 0 || port > 65535) {
        throw new IllegalArgumentException("the xDS port must be from 0 to 65535");
      }
      if (resyncInterval == null || resyncInterval.isNegative() || resyncInterval.isZero()) {
        throw new IllegalArgumentException("the re-sync interval must be positive");
      }
    }
  }

  /** What the streams share. */
  record Context(EdgeStreams streams, XdsMetrics metrics) {}

  private final Server server;
  private final EdgeStreams streams;
  private final ScheduledExecutorService resync;

  private XdsServer(Server server, EdgeStreams streams, ScheduledExecutorService resync) {
    this.server = server;
    this.streams = streams;
    this.resync = resync;
  }

  /**
   * Starts the server.
   *
   * @param edges the registry: credentials, and where the edges' status goes
   * @param policies the overload policies
   * @param resources the clusters, endpoints, listeners and routes of each edge
   * @param bus committed changes
   * @param registry central's metrics registry
   * @param gauges where the edges' reports ({@link ReportService}) go
   * @throws UncheckedIOException when the port cannot be bound
   */
  public static XdsServer start(Settings settings, EdgeStore edges, PolicyStore policies, EdgeResourceSource resources,
      ChangeBus bus, PrometheusRegistry registry, EdgeGauges gauges) {
    return start(settings, edges, policies, resources, bus, registry, gauges, List.of());
  }

  /**
   * Starts the server with more services for the edges on the same port, each behind the same
   * interceptor as ADS: a call without {@code authorization: Bearer <credential>} ends with
   * {@code UNAUTHENTICATED}; the service checks the credential, read with {@link #callCredential()}.
   *
   * @param edgeServices such as the rate limit service
   * @see #start(Settings, EdgeStore, PolicyStore, EdgeResourceSource, ChangeBus, PrometheusRegistry, EdgeGauges)
   */
  public static XdsServer start(Settings settings, EdgeStore edges, PolicyStore policies, EdgeResourceSource resources,
      ChangeBus bus, PrometheusRegistry registry, EdgeGauges gauges, List<BindableService> edgeServices) {
    PolicyResource policy = new PolicyResource(policies);
    EdgeStreams streams = new EdgeStreams(loader(edges, policy, resources), edges, EdgeStreams.pool(PUSH_THREADS, "xds-push"),
        PUSH_THREADS, EdgeStreams.pool(1, "xds-status"));
    XdsMetrics metrics = new XdsMetrics(registry, streams::connectedEdges);
    Context context = new Context(streams, metrics);
    NettyServerBuilder builder = NettyServerBuilder.forAddress(new InetSocketAddress(settings.address(), settings.port()))
        .addService(ServerInterceptors.intercept(new AdsService(context), new EdgeAuthInterceptor(metrics)))
        .addService(ServerInterceptors.intercept(ReportService.definition(edges, gauges, metrics, Clock.systemUTC()),
            new EdgeAuthInterceptor(metrics)))
        .maxInboundMessageSize(MAX_INBOUND_MESSAGE_BYTES)
        .permitKeepAliveTime(10, TimeUnit.SECONDS)
        .permitKeepAliveWithoutCalls(true);
    for (BindableService service : edgeServices) {
      builder.addService(ServerInterceptors.intercept(service, new EdgeAuthInterceptor(metrics)));
    }
    Server server = builder.build();
    try {
      server.start();
    } catch (IOException e) {
      streams.close();
      throw new UncheckedIOException("cannot listen for xDS on " + settings.address() + ":" + settings.port(), e);
    }
    bus.subscribe(streams::changed);
    ScheduledExecutorService resync = Executors.newSingleThreadScheduledExecutor(r -> {
      Thread thread = new Thread(r, "xds-resync");
      thread.setDaemon(true);
      return thread;
    });
    long every = settings.resyncInterval().toMillis();
    resync.scheduleAtFixedRate(() -> streams.changed(null), every, every, TimeUnit.MILLISECONDS);
    log.info("xDS server listening on {}:{} (re-sync every {})", settings.address(), server.getPort(), settings.resyncInterval());
    return new XdsServer(server, streams, resync);
  }

  /**
   * What a push reads of an edge (resources, policy, credential) in one transaction: one
   * consistent view, and one connection round instead of three; for many edges at once, each
   * table is read once.
   */
  private static EdgeStreams.Loader loader(EdgeStore edges, PolicyResource policy, EdgeResourceSource resources) {
    return new EdgeStreams.Loader() {
      @Override
      public EdgeSnapshot load(String edgeId) {
        return edges.inOneTransaction(() -> new EdgeSnapshot(resources.resourcesFor(edgeId), policy.load(edgeId),
            edges.credentialHash(edgeId).orElse(null)));
      }

      @Override
      public Map<String, EdgeSnapshot> load(Collection<String> edgeIds) {
        return edges.inOneTransaction(() -> {
          Map<String, EdgeResources> served = resources.resourcesFor(edgeIds);
          Map<String, TypeResources> policies = policy.load(edgeIds);
          Map<String, String> credentials = edges.credentialHashes(edgeIds);
          Map<String, EdgeSnapshot> snapshots = new HashMap<>();
          for (String edgeId : edgeIds) {
            snapshots.put(edgeId, new EdgeSnapshot(served.get(edgeId), policies.get(edgeId), credentials.get(edgeId)));
          }
          return snapshots;
        });
      }
    };
  }

  /**
   * The credential the current call presented in {@code authorization: Bearer}, for a service
   * registered through {@code edgeServices}; null outside such a call.
   */
  public static String callCredential() {
    return EdgeAuthInterceptor.CREDENTIAL.get();
  }

  /** The bound port. */
  public int port() {
    return server.getPort();
  }

  /** Ends every stream (edges reconnect elsewhere or later) and stops listening. */
  @Override
  public void close() {
    resync.shutdownNow();
    streams.close();
    server.shutdown();
    try {
      if (!server.awaitTermination(5, TimeUnit.SECONDS)) {
        server.shutdownNow();
      }
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      server.shutdownNow();
    }
  }
}
