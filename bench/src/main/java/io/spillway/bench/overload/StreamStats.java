package io.spillway.bench.overload;

import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicLongArray;
import org.HdrHistogram.Histogram;

/** Counters of one stream; updated from the event loops. */
final class StreamStats {
  final StreamSpec spec;
  final AtomicLong scheduled = new AtomicLong();
  final AtomicLong sent = new AtomicLong();
  final AtomicLong ok = new AtomicLong();
  final AtomicLong okInSlo = new AtomicLong();
  final AtomicLong refused = new AtomicLong();
  final AtomicLong refusedRetryAfter = new AtomicLong();
  final AtomicLong other = new AtomicLong();
  final AtomicLong timeout = new AtomicLong();
  final AtomicLong error = new AtomicLong();
  final AtomicLong expiredUnsent = new AtomicLong();
  final AtomicLong waitedForConn = new AtomicLong();
  final Map<Integer, AtomicLong> otherByStatus = new ConcurrentHashMap<>();
  final Histogram okLatency = new Histogram(1, 120_000_000, 3);       // micros
  final Histogram refusedLatency = new Histogram(1, 120_000_000, 3);
  final Histogram refusedFromSend = new Histogram(1, 120_000_000, 3);   // written -> answered
  final Histogram sendLag = new Histogram(1, 120_000_000, 3);
  final AtomicLongArray okPerSec;
  final AtomicLongArray okSloPerSec;
  final AtomicLongArray refusedPerSec;
  final AtomicLongArray failPerSec;
  final AtomicLongArray schedPerSec;

  StreamStats(StreamSpec spec, int seconds) {
    this.spec = spec;
    okPerSec = new AtomicLongArray(seconds);
    okSloPerSec = new AtomicLongArray(seconds);
    refusedPerSec = new AtomicLongArray(seconds);
    failPerSec = new AtomicLongArray(seconds);
    schedPerSec = new AtomicLongArray(seconds);
  }
}
