package io.spillway.edge.config;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import org.junit.jupiter.api.Test;

class WatchdogTranslationTest {

  @Test
  void envoysDefaultsWithoutAWatchdog() throws ConfigException {
    assertThat(BootstrapYaml.minimal().translate().watchdogs()).isEqualTo(WatchdogConfig.Watchdogs.DEFAULTS);
    assertThat(WatchdogConfig.DEFAULTS.missTimeout()).isEqualTo(Duration.ofMillis(200));
    assertThat(WatchdogConfig.DEFAULTS.megamissTimeout()).isEqualTo(Duration.ofSeconds(1));
    assertThat(WatchdogConfig.DEFAULTS.killTimeout()).isZero();
  }

  @Test
  void readsBothWatchdogsEveryField() throws ConfigException {
    WatchdogConfig.Watchdogs w = BootstrapYaml.minimal().top("""
        watchdogs:
          main_thread_watchdog: {miss_timeout: 0.5s, megamiss_timeout: 2s, kill_timeout: 30s}
          worker_watchdog:
            miss_timeout: 0.1s
            megamiss_timeout: 0.5s
            kill_timeout: 10s
            max_kill_timeout_jitter: 1s
            multikill_timeout: 5s
            multikill_threshold: {value: 50}
        """).translate().watchdogs();

    assertThat(w.mainThread()).isEqualTo(new WatchdogConfig(Duration.ofMillis(500), Duration.ofSeconds(2),
        Duration.ofSeconds(30), Duration.ZERO, Duration.ZERO, 0));
    assertThat(w.workers()).isEqualTo(new WatchdogConfig(Duration.ofMillis(100), Duration.ofMillis(500),
        Duration.ofSeconds(10), Duration.ofSeconds(1), Duration.ofSeconds(5), 50));
  }

  @Test
  void theDeprecatedWatchdogAppliesToBoth() throws ConfigException {
    WatchdogConfig.Watchdogs w = BootstrapYaml.minimal().top("watchdog: {kill_timeout: 20s}\n").translate()
        .watchdogs();

    assertThat(w.mainThread().killTimeout()).isEqualTo(Duration.ofSeconds(20));
    assertThat(w.workers()).isEqualTo(w.mainThread());
  }

  @Test
  void refusesWhatItCannotHonour() {
    BootstrapYaml.minimal().top("watchdog: {}\nwatchdogs: {}\n")
        .rejects("watchdog: only one of watchdog or watchdogs may be set");
    BootstrapYaml.minimal().top("""
        watchdogs:
          worker_watchdog:
            actions:
            - event: KILL
              config: {name: envoy.watchdog.profile_action}
        """).rejects("watchdogs.worker_watchdog.actions: watchdog actions are not supported");
    BootstrapYaml.minimal().top("watchdogs: {worker_watchdog: {miss_timeout: 0s}}\n")
        .rejects("watchdogs.worker_watchdog.miss_timeout: must be greater than 0");
    BootstrapYaml.minimal().top("watchdogs: {main_thread_watchdog: {multikill_threshold: {value: 150}}}\n")
        .rejects("watchdogs.main_thread_watchdog.multikill_threshold.value: must be from 0 to 100");
    BootstrapYaml.minimal().top("watchdogs: {main_thread_watchdog: {kill_timeout: -1s}}\n")
        .rejects("watchdogs.main_thread_watchdog.kill_timeout: must not be negative");
  }
}
