package io.spillway.bench.overload;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.concurrent.locks.LockSupport;

/** The CPU time of the proxy's processes over a run, from {@code /proc/<pid>/stat}, sampled every 100 ms. */
final class CpuWatch {
  private final long[] pids;
  private final List<long[]> samples = Collections.synchronizedList(new ArrayList<>());  // {nanos, ticks}

  CpuWatch(long[] pids) {
    this.pids = pids.clone();
  }

  /** Whether any process is watched. */
  boolean watching() {
    return pids.length > 0;
  }

  /** Sum of utime + stime (clock ticks) over the given processes (all their threads); -1 if unreadable. */
  private static long cpuTicks(long[] pids) {
    long total = 0;
    for (long pid : pids) {
      try {
        String stat = Files.readString(Path.of("/proc/" + pid + "/stat"));
        String[] f = stat.substring(stat.lastIndexOf(')') + 2).split(" ");
        total += Long.parseLong(f[11]) + Long.parseLong(f[12]);   // fields 14 and 15 of stat(5)
      } catch (IOException | RuntimeException e) {
        return -1;
      }
    }
    return total;
  }

  /** A daemon thread that samples the processes' CPU every 100 ms until {@code endNanos}. */
  Thread sampler(long endNanos) {
    Thread t = new Thread(() -> {
      while (System.nanoTime() < endNanos && !Thread.currentThread().isInterrupted()) {
        samples.add(new long[] {System.nanoTime(), cpuTicks(pids)});
        LockSupport.parkNanos(100_000_000L);
      }
      samples.add(new long[] {System.nanoTime(), cpuTicks(pids)});
    }, "cpu-sampler");
    t.setDaemon(true);
    return t;
  }

  /** CPU milliseconds the watched processes used between two instants (nearest 100 ms samples), or -1. */
  double millisBetween(long fromNanos, long toNanos) {
    long[] a = null;
    long[] b = null;
    synchronized (samples) {
      for (long[] x : samples) {
        if (x[0] <= fromNanos || a == null) {
          a = x;
        }
        if (x[0] <= toNanos || b == null) {
          b = x;
        }
      }
    }
    if (a == null || b == null || a[1] < 0 || b[1] < 0 || b[0] <= a[0]) {
      return -1;
    }
    return (b[1] - a[1]) * 1000.0 / 100.0;   // USER_HZ is 100 on Linux
  }
}
