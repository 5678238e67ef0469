package io.spillway.bench;

import io.spillway.edge.config.OverloadConfig;
import io.spillway.edge.config.OverloadNames;
import io.spillway.edge.overload.ActionIndex;
import io.spillway.edge.overload.LoadShedPoint;
import io.spillway.edge.overload.OverloadManager;
import io.spillway.edge.overload.OverloadState;
import io.spillway.edge.stats.StatsStore;
import java.time.Duration;
import java.util.List;
import java.util.Optional;
import java.util.OptionalInt;
import java.util.SplittableRandom;
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
import org.openjdk.jmh.annotations.Warmup;

/**
 * The per-request cost of the overload manager on a worker: read the published snapshot (one
 * volatile read), look an action's state up by its precomputed index, and ask a load shed point
 * (index lookup, a Bernoulli draw from the worker's own generator when the probability is strictly
 * between 0 and 1, a counter increment when it sheds). {@code pressure} sets the monitor so that
 * the shed probability is 0 (no draw), 0.5 (a draw on every check) or 1 (always sheds, counted).
 */
@State(Scope.Thread)
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.NANOSECONDS)
@Warmup(iterations = 3, time = 1)
@Measurement(iterations = 5, time = 1)
@Fork(1)
public class OverloadCheckBenchmark {

  private static final String MONITOR = "bench";

  @Param({"0.0", "0.5", "1.0"})
  public double pressure;

  private OverloadManager manager;
  private ActionIndex stopAcceptingRequests;
  private ActionIndex notConfigured;
  private LoadShedPoint decodeHeaders;
  private SplittableRandom random;

  @Setup
  public void setup() {
    OverloadConfig config = new OverloadConfig(Duration.ofSeconds(1),
        List.of(new OverloadConfig.ResourceMonitor(MONITOR, new OverloadConfig.InjectedResource("/unused"))),
        List.of(
            new OverloadConfig.Action(OverloadNames.DISABLE_HTTP_KEEPALIVE,
                List.of(new OverloadConfig.ThresholdTrigger(MONITOR, 0.92)), Optional.empty()),
            new OverloadConfig.Action(OverloadNames.STOP_ACCEPTING_REQUESTS,
                List.of(new OverloadConfig.ThresholdTrigger(MONITOR, 0.95)), Optional.empty())),
        List.of(new OverloadConfig.LoadShedPoint(OverloadNames.HCM_DECODE_HEADERS,
            List.of(new OverloadConfig.ScaledTrigger(MONITOR, 0.0, 1.0)))),
        OptionalInt.empty(), List.of());
    double value = pressure;
    manager = OverloadManager.builder(config)
        .stats(new StatsStore().rootScope())
        .nanoClock(System::nanoTime)
        .monitors(m -> callbacks -> callbacks.onSuccess(value))
        .build();
    manager.refresh();
    stopAcceptingRequests = manager.actionHandle(OverloadNames.STOP_ACCEPTING_REQUESTS);
    notConfigured = manager.actionHandle(OverloadNames.REJECT_INCOMING_CONNECTIONS);
    decodeHeaders = manager.loadShedPoint(OverloadNames.HCM_DECODE_HEADERS);
    random = new SplittableRandom(42);
  }

  /** Snapshot read + indexed lookup of one action's state. */
  @Benchmark
  public boolean actionCheck() {
    return manager.state().isSaturated(stopAcceptingRequests);
  }

  /** The same for an action that is not configured (the NO-OP handle). */
  @Benchmark
  public boolean unconfiguredActionCheck() {
    return manager.state().isSaturated(notConfigured);
  }

  /** Snapshot read + one shed point decision. */
  @Benchmark
  public boolean shedPointCheck() {
    return decodeHeaders.shouldShed(manager.state(), random);
  }

  /** What a new request pays: one snapshot read shared by an action check and a shed point. */
  @Benchmark
  public boolean requestAdmission() {
    OverloadState state = manager.state();
    return state.isSaturated(stopAcceptingRequests) || decodeHeaders.shouldShed(state, random);
  }
}
