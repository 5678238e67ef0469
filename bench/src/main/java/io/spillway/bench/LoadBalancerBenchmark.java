package io.spillway.bench;

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

/** One host pick per operation, per policy, over 10 hosts (equal or unequal weights). */
@State(Scope.Thread)
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.NANOSECONDS)
@Warmup(iterations = 3, time = 1)
@Measurement(iterations = 5, time = 1)
@Fork(1)
public class LoadBalancerBenchmark {

  @Param({"ROUND_ROBIN", "LEAST_REQUEST", "RANDOM"})
  public String policy;

  @Param({"equal", "weighted"})
  public String weights;

  private ScheduledExecutorService control;
  private Cluster cluster;
  private Worker worker;

  @Setup
  public void setup() {
    List<ClusterConfig.Endpoint> endpoints = new ArrayList<>();
    for (int i = 0; i < 10; i++) {
      endpoints.add(new ClusterConfig.Endpoint(new SocketAddress("127.0.0." + (i + 1), 8080),
          weights.equals("equal") ? 1 : 1 + i));
    }
    ClusterConfig config = new ClusterConfig("bench", ClusterConfig.DiscoveryType.STATIC,
        ClusterConfig.LbPolicy.valueOf(policy), 2, Duration.ofSeconds(1), Duration.ofSeconds(5), endpoints,
        ClusterConfig.Thresholds.DEFAULTS, ClusterConfig.UpstreamProtocol.HTTP1, 1 << 20, 0, Duration.ofHours(1));
    control = Executors.newSingleThreadScheduledExecutor();
    ClusterManager manager = new ClusterManager(new StatsStore().rootScope(), 1, control,
        ClusterManager.Resolver.SYSTEM, 1L);
    Map<String, ClusterConfig> configs = new LinkedHashMap<>();
    configs.put("bench", config);
    manager.initialize(configs);
    cluster = manager.get("bench");
    worker = new Worker(0, null, new SplittableRandom(7), null, null);
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
