package io.spillway.edge.config;

import java.time.Duration;

/**
 * Envoy's {@code Watchdog}: how long a watched thread may go without touching its watchdog. Zero
 * disables a kill timeout, as in Envoy.
 *
 * @param missTimeout a stall this long counts one {@code watchdog_miss} (Envoy's default 200 ms)
 * @param megamissTimeout a stall this long counts one {@code watchdog_mega_miss} (default 1 s)
 * @param killTimeout a stall this long of one thread aborts the process; zero for never (default)
 * @param maxKillTimeoutJitter up to this much, chosen once at random, is added to {@code killTimeout}
 * @param multikillTimeout a stall this long of several threads at once aborts the process; zero for never
 * @param multikillThresholdPercent the share of watched threads, in percent, that must be past
 *     {@code multikillTimeout} together (0: two threads are enough, as in Envoy)
 */
public record WatchdogConfig(Duration missTimeout, Duration megamissTimeout, Duration killTimeout,
    Duration maxKillTimeoutJitter, Duration multikillTimeout, double multikillThresholdPercent) {

  /** Envoy's defaults: misses and mega-misses are counted, nothing is killed. */
  public static final WatchdogConfig DEFAULTS = new WatchdogConfig(Duration.ofMillis(200), Duration.ofSeconds(1),
      Duration.ZERO, Duration.ZERO, Duration.ZERO, 0);

  /**
   * The main thread's watchdog and the workers' ({@code watchdogs}, or the deprecated
   * {@code watchdog} for both).
   */
  public record Watchdogs(WatchdogConfig mainThread, WatchdogConfig workers) {
    public static final Watchdogs DEFAULTS = new Watchdogs(WatchdogConfig.DEFAULTS, WatchdogConfig.DEFAULTS);
  }
}
