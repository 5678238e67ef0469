package io.spillway.edge.server;

import static org.assertj.core.api.Assertions.assertThat;

import io.netty.channel.DefaultEventLoopGroup;
import io.netty.channel.EventLoop;
import io.spillway.edge.config.WatchdogConfig;
import io.spillway.edge.stats.Counter;
import io.spillway.edge.stats.StatsStore;
import java.time.Duration;
import java.util.SplittableRandom;
import java.util.concurrent.CopyOnWriteArrayList;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/** The guard dog on real loops and its own thread: a loop kept busy is counted, then killed. */
class GuardDogIT {
  private final DefaultEventLoopGroup loops = new DefaultEventLoopGroup(2);
  private final StatsStore stats = new StatsStore();
  private final CopyOnWriteArrayList<String> kills = new CopyOnWriteArrayList<>();
  private GuardDog dog;

  @AfterEach
  void close() {
    if (dog != null) {
      dog.close();
    }
    loops.shutdownGracefully(0, 0, java.util.concurrent.TimeUnit.SECONDS);
  }

  private long counter(String name) {
    return stats.find(name).map(s -> ((Counter) s).value()).orElse(0L);
  }

  @Test
  void aLoopKeptBusyIsCountedAndPastTheKillTimeoutTheProcessWouldAbort() throws Exception {
    dog = new GuardDog(new WatchdogConfig(Duration.ofMillis(100), Duration.ofMillis(300), Duration.ofSeconds(2),
        Duration.ZERO, Duration.ZERO, 0), stats.rootScope().scope("workers"), System::nanoTime,
        new SplittableRandom(1), kills::add);
    EventLoop first = loops.next();
    EventLoop second = loops.next();
    dog.watch("worker_0", first);
    dog.watch("worker_1", second);
    dog.start("guarddog-it");

    // worker_1 busy for 600 ms: a miss and a mega-miss, no kill.
    second.submit(() -> sleep(600)).get();
    long deadline = System.nanoTime() + Duration.ofSeconds(5).toNanos();
    while (counter("workers.worker_1.watchdog_mega_miss") == 0 && System.nanoTime() < deadline) {
      Thread.sleep(10);
    }
    assertThat(counter("workers.worker_1.watchdog_miss")).isPositive();
    assertThat(counter("workers.worker_1.watchdog_mega_miss")).isPositive();
    assertThat(kills).isEmpty();

    // Busy for longer than kill_timeout: the guard dog would abort.
    second.execute(() -> sleep(3_000));
    deadline = System.nanoTime() + Duration.ofSeconds(10).toNanos();
    while (kills.isEmpty() && System.nanoTime() < deadline) {
      Thread.sleep(10);
    }
    assertThat(kills).singleElement().asString().contains("worker_1");
  }

  private static void sleep(long ms) {
    try {
      Thread.sleep(ms);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }
}
