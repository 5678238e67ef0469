package io.spillway.bench;

import io.netty.handler.codec.http.DefaultHttpHeaders;
import io.spillway.edge.config.ClusterConfig;
import io.spillway.edge.config.SocketAddress;
import io.spillway.edge.stats.StatsStore;
import io.spillway.edge.upstream.Cluster;
import io.spillway.edge.upstream.ClusterManager;
import io.spillway.edge.upstream.Host;
import io.spillway.edge.upstream.Worker;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.SplittableRandom;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.TearDown;
import org.openjdk.jmh.annotations.Warmup;

/**
 * One host pick per operation, per policy, over 10 hosts (equal or unequal weights). For
 * CLIENT_SIDE_WEIGHTED_ROUND_ROBIN the weights come from ORCA reports handed to the hosts once
 * (equal utilization, or 0.1..1.0), taken in by the control thread before measuring: a pick is
 * then one read of the published stride schedule plus its accept loop.
 */
@State(Scope.Thread)
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.NANOSECONDS)
@Warmup(iterations = 3, time = 1)
@Measurement(iterations = 5, time = 1)
@Fork(1)
public class LoadBalancerBenchmark {

  @Param({"ROUND_ROBIN", "LEAST_REQUEST", "RANDOM", "CLIENT_SIDE_WEIGHTED_ROUND_ROBIN"})
  public String policy;

  @Param({"equal", "weighted"})
  public String weights;

  private ScheduledExecutorService control;
  private Cluster cluster;
  private Worker worker;

  @Setup
  public void setup() throws InterruptedException {
    ClusterConfig.LbPolicy lbPolicy = ClusterConfig.LbPolicy.valueOf(policy);
    boolean reported = lbPolicy == ClusterConfig.LbPolicy.CLIENT_SIDE_WEIGHTED_ROUND_ROBIN;
    List<ClusterConfig.Endpoint> endpoints = new ArrayList<>();
    for (int i = 0; i < 10; i++) {
      endpoints.add(new ClusterConfig.Endpoint(new SocketAddress("127.0.0." + (i + 1), 8080),
          weights.equals("equal") || reported ? 1 : 1 + i));
    }
    ClusterConfig.LbSettings lb = reported
        ? new ClusterConfig.LbSettings(1.0, null, new ClusterConfig.WeightedRoundRobin(Duration.ZERO,
            Duration.ofMinutes(3), Duration.ofMillis(100), 1.0, List.of()))
        : ClusterConfig.LbSettings.DEFAULTS;
    ClusterConfig config = new ClusterConfig("bench", ClusterConfig.DiscoveryType.STATIC, lbPolicy, 2,
        Duration.ofSeconds(1), Duration.ofSeconds(5), endpoints, ClusterConfig.Thresholds.DEFAULTS,
        ClusterConfig.UpstreamProtocol.HTTP1, 1 << 20, 0, Duration.ofHours(1), ClusterConfig.DnsLookupFamily.AUTO, "",
        io.spillway.edge.config.Http2Options.UPSTREAM_DEFAULTS, lb);
    control = Executors.newSingleThreadScheduledExecutor();
    ClusterManager manager = new ClusterManager(new StatsStore().rootScope(), 1, control,
        ClusterManager.Resolver.SYSTEM, 1L);
    Map<String, ClusterConfig> configs = new LinkedHashMap<>();
    configs.put("bench", config);
    manager.initialize(configs);
    cluster = manager.get("bench");
    worker = new Worker(0, null, new SplittableRandom(7), null, null, null);
    if (reported) {
      List<Host> hosts = cluster.hosts().hosts();
      for (int i = 0; i < hosts.size(); i++) {
        double utilization = weights.equals("equal") ? 0.5 : 0.1 * (i + 1);
        hosts.get(i).loadReport(new DefaultHttpHeaders().set("endpoint-load-metrics",
            "TEXT rps_fractional=100, application_utilization=" + utilization));
      }
      Thread.sleep(500); // the control thread rebuilds the weights every 100 ms
    }
  }

  @TearDown
  public void tearDown() {
    control.shutdownNow();
  }

  @Benchmark
  public Host pick() {
    return cluster.pickHost(worker);
  }
}
