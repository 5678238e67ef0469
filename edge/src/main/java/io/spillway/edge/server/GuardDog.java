package io.spillway.edge.server;

import io.spillway.edge.config.WatchdogConfig;
import io.spillway.edge.stats.Counter;
import io.spillway.edge.stats.Scope;
import java.lang.management.ManagementFactory;
import java.lang.management.ThreadInfo;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;
import java.util.function.LongSupplier;
import java.util.random.RandomGenerator;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Envoy's guard dog, one per watchdog config: the main thread's ({@code server.*} stats) and the
 * workers' ({@code workers.*}). Each watched thread touches its own {@link Dog} from a timer on
 * its own loop; the guard dog's thread looks at every dog once per interval (the smallest
 * configured timeout) and counts a thread that has not touched its dog for {@code miss_timeout}
 * in {@code watchdog_miss}, for {@code megamiss_timeout} in {@code watchdog_mega_miss} — once per
 * stall, under the group and under the thread's own name ({@code workers.worker_0.watchdog_miss}).
 * A thread stalled past {@code kill_timeout} (plus its jitter), or at least
 * max(2, ⌈{@code multikill_threshold} × watched⌉) threads past {@code multikill_timeout} together,
 * make it log every thread's stack and abort the process, as Envoy does.
 *
 * <p>A touch is one volatile write on the watched thread; the guard dog reads with no lock and
 * never blocks a watched thread. Every {@link #watch} happens before {@link #start}.
 */
final class GuardDog implements AutoCloseable {
  private static final Logger log = LoggerFactory.getLogger(GuardDog.class);

  /** What the guard dog does on a kill: in production, dump the threads and halt. */
  @FunctionalInterface
  interface Killer {
    void kill(String reason);

    /** Logs every thread's stack, then halts with SIGABRT's exit status, as an abort does. */
    Killer ABORT = reason -> {
      StringBuilder dump = new StringBuilder("guard dog: ").append(reason).append("; aborting. Threads:\n");
      for (ThreadInfo t : ManagementFactory.getThreadMXBean().dumpAllThreads(false, false)) {
        dump.append(t);
      }
      log.error("{}", dump);
      java.lang.Runtime.getRuntime().halt(134);
    };
  }

  /**
   * Envoy's two guard dogs, started: the main thread's under {@code server.*}, the workers' under
   * {@code workers.*} ({@code worker_<index>}), each on a thread of its own.
   */
  static List<GuardDog> startBoth(WatchdogConfig.Watchdogs config, Scope root, ScheduledExecutorService main,
      java.util.Collection<io.spillway.edge.upstream.Worker> workers, long seed) {
    var random = new java.util.SplittableRandom(seed);
    GuardDog mainDog = new GuardDog(config.mainThread(), root.scope("server"), System::nanoTime, random,
        Killer.ABORT);
    mainDog.watch("main_thread", main);
    GuardDog workerDog = new GuardDog(config.workers(), root.scope("workers"), System::nanoTime, random.split(),
        Killer.ABORT);
    workers.stream().sorted(java.util.Comparator.comparingInt(io.spillway.edge.upstream.Worker::index))
        .forEach(w -> workerDog.watch("worker_" + w.index(), w.loop()));
    mainDog.start("spillway-guarddog-main");
    workerDog.start("spillway-guarddog-workers");
    return List.of(mainDog, workerDog);
  }

  /** One watched thread's watchdog. */
  static final class Dog {
    final String name;
    private final long killNanos;
    private final Counter threadMiss;
    private final Counter threadMegamiss;
    private volatile long touchedAt;
    private boolean missAlerted;
    private boolean megamissAlerted;

    private Dog(String name, long killNanos, Scope group, long now) {
      this.name = name;
      this.killNanos = killNanos;
      Scope own = group.scope(name);
      this.threadMiss = own.counter("watchdog_miss");
      this.threadMegamiss = own.counter("watchdog_mega_miss");
      this.touchedAt = now;
    }

    /** On the watched thread. */
    void touch(long now) {
      touchedAt = now;
    }
  }

  private final WatchdogConfig config;
  private final Scope group;
  private final Counter miss;
  private final Counter megamiss;
  private final List<Dog> dogs = new ArrayList<>();
  private final LongSupplier nanoClock;
  private final RandomGenerator random;
  private final Killer killer;
  private volatile boolean stopped;
  private Thread thread;
  private boolean killed;

  /**
   * @param group {@code server} for the main thread's guard dog, {@code workers} for the workers'
   */
  GuardDog(WatchdogConfig config, Scope group, LongSupplier nanoClock, RandomGenerator random, Killer killer) {
    this.config = config;
    this.group = group;
    this.miss = group.counter("watchdog_miss");
    this.megamiss = group.counter("watchdog_mega_miss");
    this.nanoClock = nanoClock;
    this.random = random;
    this.killer = killer;
  }

  /**
   * Watches a thread: its loop touches the dog every half interval from now on.
   *
   * @param loop the thread's own executor (an event loop or the main scheduler)
   */
  Dog watch(String name, ScheduledExecutorService loop) {
    Dog dog = watch(name);
    long touchEvery = Math.max(1, interval() / 2);
    loop.scheduleAtFixedRate(() -> dog.touch(nanoClock.getAsLong()), touchEvery, touchEvery, TimeUnit.NANOSECONDS);
    return dog;
  }

  /** A dog whose thread touches it by hand (tests). */
  Dog watch(String name) {
    long kill = config.killTimeout().toNanos();
    long jitter = config.maxKillTimeoutJitter().toNanos();
    if (kill > 0 && jitter > 0) {
      kill += random.nextLong(jitter + 1);
    }
    Dog dog = new Dog(name, kill, group, nanoClock.getAsLong());
    dogs.add(dog);
    return dog;
  }

  /** Envoy's loop interval: the smallest timeout that is set. */
  long interval() {
    long i = Math.min(config.missTimeout().toNanos(), config.megamissTimeout().toNanos());
    if (!config.killTimeout().isZero()) {
      i = Math.min(i, config.killTimeout().toNanos());
    }
    if (!config.multikillTimeout().isZero()) {
      i = Math.min(i, config.multikillTimeout().toNanos());
    }
    return i;
  }

  /** Starts the guard dog's thread. */
  void start(String threadName) {
    long every = interval();
    thread = new Thread(() -> {
      while (!stopped) {
        LockSupport.parkNanos(every);
        if (!stopped) {
          step(nanoClock.getAsLong());
        }
      }
    }, threadName);
    thread.setDaemon(true);
    thread.start();
  }

  /** One look at every dog (on the guard dog's thread; a test's own). */
  void step(long now) {
    long missNanos = config.missTimeout().toNanos();
    long megamissNanos = config.megamissTimeout().toNanos();
    long multikillNanos = config.multikillTimeout().toNanos();
    int multikill = 0;
    for (Dog dog : dogs) {
      long stalled = now - dog.touchedAt;
      if (stalled >= missNanos) {
        if (!dog.missAlerted) {
          dog.missAlerted = true;
          miss.inc();
          dog.threadMiss.inc();
        }
      } else {
        dog.missAlerted = false;
      }
      if (stalled >= megamissNanos) {
        if (!dog.megamissAlerted) {
          dog.megamissAlerted = true;
          megamiss.inc();
          dog.threadMegamiss.inc();
          log.warn("guard dog: thread {} has not run its loop for {} ms", dog.name,
              TimeUnit.NANOSECONDS.toMillis(stalled));
        }
      } else {
        dog.megamissAlerted = false;
      }
      if (dog.killNanos > 0 && stalled >= dog.killNanos) {
        kill("thread " + dog.name + " stalled for " + TimeUnit.NANOSECONDS.toMillis(stalled)
            + " ms, past kill_timeout");
        return;
      }
      if (multikillNanos > 0 && stalled >= multikillNanos) {
        multikill++;
      }
    }
    long required = Math.max(2, (long) Math.ceil(config.multikillThresholdPercent() / 100.0 * dogs.size()));
    if (multikillNanos > 0 && multikill >= required) {
      kill(multikill + " of " + dogs.size() + " threads stalled past multikill_timeout");
    }
  }

  private void kill(String reason) {
    if (!killed) {
      killed = true;
      killer.kill(reason);
    }
  }

  @Override
  public void close() {
    stopped = true;
    if (thread != null) {
      LockSupport.unpark(thread);
    }
  }
}
