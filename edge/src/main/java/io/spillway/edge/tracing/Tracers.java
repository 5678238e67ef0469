package io.spillway.edge.tracing;

import io.grpc.Channel;
import io.spillway.edge.config.GrpcServiceConfig;
import io.spillway.edge.config.TracingConfig;
import io.spillway.edge.runtime.RuntimeSnapshot;
import io.spillway.edge.stats.Scope;
import java.net.InetSocketAddress;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.Function;
import java.util.function.Supplier;

/**
 * The edge's tracers (Envoy's {@code TracerManager}): one reporter ({@link ZipkinReporter},
 * {@link OtlpReporter}, {@link OtlpGrpcReporter}) per distinct provider config, shared by every connection manager that names it, and a {@link Tracer}
 * for each connection manager. Used from the control side: configuration loads and shutdown.
 */
public final class Tracers implements AutoCloseable {

  /**
   * The node the spans come from.
   *
   * @param id {@code node.id}, the {@code node_id} tag
   * @param cluster {@code node.cluster}, the spans' service name
   * @param zone {@code node.locality.zone}, the {@code zone} tag
   */
  public record LocalNode(String id, String cluster, String zone) {}

  private final Function<String, List<InetSocketAddress>> clusterHosts;
  private final Function<GrpcServiceConfig, Channel> grpcChannels;
  private final Supplier<RuntimeSnapshot> runtime;
  private final LocalNode node;
  private final ZipkinReporter.Stats zipkinStats;
  private final OtlpReporter.Stats otlpStats;
  private final Map<TracingConfig.Provider, BatchingReporter> reporters = new ConcurrentHashMap<>();

  /**
   * @param clusterHosts a cluster's host addresses as they are now (empty when it has none or is gone)
   * @param grpcChannels the edge's gRPC channel to a {@code grpc_service}'s cluster, with its
   *     initial metadata (OTLP/gRPC)
   */
  public Tracers(Scope root, Function<String, List<InetSocketAddress>> clusterHosts,
      Function<GrpcServiceConfig, Channel> grpcChannels, Supplier<RuntimeSnapshot> runtime, LocalNode node) {
    this.clusterHosts = clusterHosts;
    this.grpcChannels = grpcChannels;
    this.runtime = runtime;
    this.node = node;
    this.zipkinStats = ZipkinReporter.Stats.of(root);
    this.otlpStats = OtlpReporter.Stats.of(root);
  }

  /** A connection manager's tracer; its reporter starts the first time its provider config is named. */
  public Tracer tracer(TracingConfig config, Scope hcmScope, boolean useRemoteAddress) {
    BatchingReporter reporter = reporters.computeIfAbsent(config.provider(), p -> switch (p) {
      case TracingConfig.Zipkin z -> new ZipkinReporter(z, node.cluster(),
          () -> clusterHosts.apply(z.collectorCluster()), runtime, zipkinStats, BatchingReporter.QUEUE_CAPACITY);
      case TracingConfig.OpenTelemetry o -> switch (o.export()) {
        case TracingConfig.OtlpHttp http -> new OtlpReporter(http, o.serviceName(),
            () -> clusterHosts.apply(http.cluster()), runtime, otlpStats, BatchingReporter.QUEUE_CAPACITY);
        case TracingConfig.OtlpGrpc grpc -> new OtlpGrpcReporter(grpc, o.serviceName(),
            grpcChannels.apply(grpc.service()), runtime, otlpStats, BatchingReporter.QUEUE_CAPACITY);
      };
    });
    return new Tracer(config, node.id(), node.zone(), reporter, hcmScope, runtime, useRemoteAddress, System::getenv);
  }

  /** Sends what every reporter holds and stops their threads. */
  @Override
  public void close() {
    reporters.values().forEach(BatchingReporter::close);
    reporters.clear();
  }
}
