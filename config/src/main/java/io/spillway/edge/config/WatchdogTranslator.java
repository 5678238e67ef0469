package io.spillway.edge.config;

import io.envoyproxy.envoy.config.bootstrap.v3.Bootstrap;
import io.envoyproxy.envoy.config.bootstrap.v3.Watchdog;
import java.time.Duration;

/**
 * {@code watchdogs} (and the deprecated {@code watchdog}) → {@link WatchdogConfig.Watchdogs}.
 * Watchdog actions (extensions run on a miss or a kill, such as the profile action) are not
 * supported and are refused.
 */
final class WatchdogTranslator {
  private static final SupportedFields WATCHDOG = SupportedFields.of(Watchdog.getDescriptor(),
      "miss_timeout", "megamiss_timeout", "kill_timeout", "max_kill_timeout_jitter", "multikill_timeout",
      "multikill_threshold");
  private static final SupportedFields WATCHDOGS = SupportedFields.of(
      io.envoyproxy.envoy.config.bootstrap.v3.Watchdogs.getDescriptor(), "main_thread_watchdog", "worker_watchdog");

  private WatchdogTranslator() {}

  @SuppressWarnings("deprecation") // watchdog: deprecated for watchdogs, still accepted by Envoy
  static WatchdogConfig.Watchdogs translate(Bootstrap bootstrap, FieldPath root) throws ConfigException {
    if (bootstrap.hasWatchdog() && bootstrap.hasWatchdogs()) {
      throw new ConfigException(root.field("watchdog"), "only one of watchdog or watchdogs may be set");
    }
    if (bootstrap.hasWatchdog()) {
      WatchdogConfig both = watchdog(bootstrap.getWatchdog(), root.field("watchdog"));
      return new WatchdogConfig.Watchdogs(both, both);
    }
    if (!bootstrap.hasWatchdogs()) {
      return WatchdogConfig.Watchdogs.DEFAULTS;
    }
    FieldPath path = root.field("watchdogs");
    var w = bootstrap.getWatchdogs();
    WATCHDOGS.check(w, path);
    return new WatchdogConfig.Watchdogs(
        w.hasMainThreadWatchdog() ? watchdog(w.getMainThreadWatchdog(), path.field("main_thread_watchdog"))
            : WatchdogConfig.DEFAULTS,
        w.hasWorkerWatchdog() ? watchdog(w.getWorkerWatchdog(), path.field("worker_watchdog"))
            : WatchdogConfig.DEFAULTS);
  }

  private static WatchdogConfig watchdog(Watchdog w, FieldPath path) throws ConfigException {
    if (w.getActionsCount() > 0) {
      throw new ConfigException(path.field("actions"), "watchdog actions are not supported");
    }
    WATCHDOG.check(w, path);
    WatchdogConfig d = WatchdogConfig.DEFAULTS;
    Duration miss = ProtoValues.duration(w.hasMissTimeout(), w.getMissTimeout(), path.field("miss_timeout"),
        d.missTimeout());
    Duration megamiss = ProtoValues.duration(w.hasMegamissTimeout(), w.getMegamissTimeout(),
        path.field("megamiss_timeout"), d.megamissTimeout());
    Duration kill = ProtoValues.duration(w.hasKillTimeout(), w.getKillTimeout(), path.field("kill_timeout"),
        d.killTimeout());
    Duration jitter = ProtoValues.duration(w.hasMaxKillTimeoutJitter(), w.getMaxKillTimeoutJitter(),
        path.field("max_kill_timeout_jitter"), d.maxKillTimeoutJitter());
    Duration multikill = ProtoValues.duration(w.hasMultikillTimeout(), w.getMultikillTimeout(),
        path.field("multikill_timeout"), d.multikillTimeout());
    double threshold = w.hasMultikillThreshold() ? w.getMultikillThreshold().getValue() : 0;
    if (threshold < 0 || threshold > 100 || Double.isNaN(threshold)) {
      throw new ConfigException(path.field("multikill_threshold").field("value"), "must be from 0 to 100");
    }
    // Envoy's guard dog steps at the smallest timeout: a zero one would make it spin.
    if (miss.isZero()) {
      throw new ConfigException(path.field("miss_timeout"), "must be greater than 0");
    }
    if (megamiss.isZero()) {
      throw new ConfigException(path.field("megamiss_timeout"), "must be greater than 0");
    }
    return new WatchdogConfig(miss, megamiss, kill, jitter, multikill, threshold);
  }
}
