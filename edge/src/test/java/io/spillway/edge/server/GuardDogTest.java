package io.spillway.edge.server;

import static org.assertj.core.api.Assertions.assertThat;

import io.spillway.edge.config.WatchdogConfig;
import io.spillway.edge.stats.Counter;
import io.spillway.edge.stats.StatsStore;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.SplittableRandom;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Test;

class GuardDogTest {
  private static final long MS = 1_000_000L;

  private final StatsStore stats = new StatsStore();
  private final AtomicLong now = new AtomicLong(1_000 * MS);
  private final List<String> kills = new ArrayList<>();

  private GuardDog guardDog(WatchdogConfig config) {
    return new GuardDog(config, stats.rootScope().scope("workers"), now::get, new SplittableRandom(1), kills::add);
  }

  private long counter(String name) {
    return stats.find(name).map(s -> ((Counter) s).value()).orElse(0L);
  }

  private static WatchdogConfig config(long killMs, long multikillMs, double thresholdPercent) {
    return new WatchdogConfig(Duration.ofMillis(200), Duration.ofSeconds(1), Duration.ofMillis(killMs), Duration.ZERO,
        Duration.ofMillis(multikillMs), thresholdPercent);
  }

  @Test
  void aStallCountsOneMissAndOneMegaMissPerStallForTheGroupAndTheThread() {
    GuardDog dog = guardDog(WatchdogConfig.DEFAULTS);
    GuardDog.Dog w0 = dog.watch("worker_0");
    GuardDog.Dog w1 = dog.watch("worker_1");

    now.addAndGet(150 * MS);
    w0.touch(now.get());
    w1.touch(now.get());
    dog.step(now.get());
    assertThat(counter("workers.watchdog_miss")).isZero();

    // worker_1 stalls for 1.2 s, looked at every 200 ms; worker_0 keeps touching.
    for (int i = 0; i < 6; i++) {
      now.addAndGet(200 * MS);
      w0.touch(now.get());
      dog.step(now.get());
    }
    assertThat(counter("workers.watchdog_miss")).isEqualTo(1);
    assertThat(counter("workers.worker_1.watchdog_miss")).isEqualTo(1);
    assertThat(counter("workers.worker_0.watchdog_miss")).isZero();
    assertThat(counter("workers.watchdog_mega_miss")).isEqualTo(1);
    assertThat(counter("workers.worker_1.watchdog_mega_miss")).isEqualTo(1);

    // It runs again, then stalls once more: a second miss, no second mega-miss.
    w1.touch(now.get());
    dog.step(now.get());
    now.addAndGet(300 * MS);
    dog.step(now.get());
    assertThat(counter("workers.worker_1.watchdog_miss")).isEqualTo(2);
    assertThat(counter("workers.worker_1.watchdog_mega_miss")).isEqualTo(1);
    assertThat(kills).isEmpty();
  }

  @Test
  void aThreadPastKillTimeoutAbortsOnce() {
    GuardDog dog = guardDog(config(2_000, 0, 0));
    dog.watch("worker_0");
    assertThat(dog.interval()).isEqualTo(200 * MS);

    now.addAndGet(1_999 * MS);
    dog.step(now.get());
    assertThat(kills).isEmpty();
    now.addAndGet(MS);
    dog.step(now.get());
    now.addAndGet(MS);
    dog.step(now.get());
    assertThat(kills).singleElement().asString().contains("worker_0").contains("kill_timeout");
  }

  @Test
  void multikillNeedsAtLeastTwoThreadsAndTheThresholdsShare() {
    GuardDog dog = guardDog(config(0, 500, 50));
    GuardDog.Dog[] dogs = {dog.watch("worker_0"), dog.watch("worker_1"), dog.watch("worker_2"), dog.watch("worker_3"),
        dog.watch("worker_4")};
    assertThat(dog.interval()).isEqualTo(200 * MS);

    // Two of five stalled: below ⌈50 % × 5⌉ = 3.
    now.addAndGet(600 * MS);
    for (int i = 2; i < 5; i++) {
      dogs[i].touch(now.get());
    }
    dog.step(now.get());
    assertThat(kills).isEmpty();

    now.addAndGet(600 * MS);
    for (int i = 3; i < 5; i++) {
      dogs[i].touch(now.get());
    }
    dog.step(now.get());
    assertThat(kills).singleElement().asString().contains("3 of 5 threads");
  }

  @Test
  void oneStalledThreadIsNeverAMultikill() {
    GuardDog dog = guardDog(config(0, 500, 0));
    dog.watch("main_thread");

    now.addAndGet(10_000 * MS);
    dog.step(now.get());

    assertThat(kills).isEmpty();
  }

  @Test
  void theJitterIsAddedToTheKillTimeoutOnceAtMost() {
    WatchdogConfig c = new WatchdogConfig(Duration.ofMillis(200), Duration.ofSeconds(1), Duration.ofSeconds(1),
        Duration.ofMillis(500), Duration.ZERO, 0);
    GuardDog dog = guardDog(c);
    dog.watch("worker_0");

    now.addAndGet(999 * MS);
    dog.step(now.get());
    assertThat(kills).isEmpty();
    now.addAndGet(501 * MS);
    dog.step(now.get());
    assertThat(kills).hasSize(1);
  }
}
