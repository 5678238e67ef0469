package io.spillway.edge.upstream;

import io.spillway.edge.config.ClusterConfig;
import java.time.Duration;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;
import java.util.function.BooleanSupplier;
import java.util.random.RandomGenerator;

/**
 * Re-resolves one STRICT_DNS or LOGICAL_DNS cluster on the control thread, with Envoy's timing:
 * after a resolution that succeeded, the next comes after {@code dns_refresh_rate} plus a random
 * part below {@code dns_jitter}; after one that failed, after a random delay below the {@code
 * dns_failure_refresh_rate} interval, which starts at {@code base_interval} and doubles up to
 * {@code max_interval} (Envoy's jittered exponential back-off; a success resets it), or after
 * {@code dns_refresh_rate} without that field. No delay is shorter than {@link #MIN_DELAY}.
 */
final class DnsRefreshLoop {
  /** The shortest time between two resolutions of a cluster. */
  static final Duration MIN_DELAY = Duration.ofMillis(100);

  private final ScheduledExecutorService control;
  private final BooleanSupplier resolve;
  private final long refreshNanos;
  private final long jitterNanos;
  private final long failureBaseNanos;
  private final long failureMaxNanos;
  private final RandomGenerator random;
  /** The failure back-off's current interval; 0 without dns_failure_refresh_rate. */
  private long failureIntervalNanos;
  private volatile ScheduledFuture<?> next;
  private volatile boolean stopped;

  /**
   * @param resolve resolves the cluster's names and publishes its hosts; false when a resolution
   *     failed (the loop then backs off)
   */
  DnsRefreshLoop(ClusterConfig config, ScheduledExecutorService control, RandomGenerator random,
      BooleanSupplier resolve) {
    this.control = control;
    this.resolve = resolve;
    this.random = random;
    this.refreshNanos = config.dnsRefreshRate().toNanos();
    ClusterConfig.DnsRefresh settings = config.dnsRefresh();
    this.jitterNanos = settings.jitter().toNanos();
    this.failureBaseNanos = settings.failureRefresh().map(b -> b.base().toNanos()).orElse(0L);
    this.failureMaxNanos = settings.failureRefresh().map(b -> b.max().toNanos()).orElse(0L);
    this.failureIntervalNanos = failureBaseNanos;
  }

  /**
   * Starts the loop: with {@code resolveNow} the first resolution runs on the calling thread
   * (start-up waits for it, {@code wait_for_warm_on_init}), else at once on the control thread.
   */
  void start(boolean resolveNow) {
    if (resolveNow) {
      run();
    } else {
      next = control.schedule(this::run, 0, TimeUnit.NANOSECONDS);
    }
  }

  /** Stops re-resolving (the cluster was replaced or removed). */
  void stop() {
    stopped = true;
    ScheduledFuture<?> f = next;
    if (f != null) {
      f.cancel(false);
    }
  }

  private void run() {
    if (stopped) {
      return;
    }
    long delay = delayAfter(resolve.getAsBoolean());
    if (!stopped) {
      next = control.schedule(this::run, delay, TimeUnit.NANOSECONDS);
    }
  }

  /** How long until the next resolution after one that succeeded or failed. */
  long delayAfter(boolean succeeded) {
    long delay;
    if (succeeded) {
      failureIntervalNanos = failureBaseNanos;
      delay = refreshNanos + (jitterNanos > 0 ? random.nextLong(jitterNanos) : 0);
    } else if (failureBaseNanos > 0) {
      long interval = failureIntervalNanos;
      failureIntervalNanos = interval < failureMaxNanos / 2 ? interval * 2 : failureMaxNanos;
      delay = Math.min(random.nextLong(interval), failureMaxNanos);
    } else {
      delay = refreshNanos;
    }
    return Math.max(MIN_DELAY.toNanos(), delay);
  }
}
