package io.spillway.bench.fleet;

import io.lettuce.core.RedisClient;
import io.lettuce.core.api.StatefulRedisConnection;
import io.spillway.edge.filters.policylimit.FleetCounter;
import io.spillway.edge.redis.RedisFleetCounter;
import java.time.Duration;
import java.util.EnumMap;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.LongAdder;
import java.util.concurrent.locks.LockSupport;
import org.HdrHistogram.Recorder;

/**
 * Open-loop load on the fleet-wide count: {@code --rate} checks a second, each at its scheduled
 * instant whether or not the earlier ones were answered, through the edge's own
 * {@link RedisFleetCounter} (the one connection and script a fleet limit uses). Latency runs from
 * the scheduled instant to the answer, so a stall shows in full; a check left unanswered at the
 * end counts as lost. The Redis round trips come from Redis's own {@code INFO commandstats}
 * (EVALSHA and EVAL calls) before and after. Prints one JSON object.
 *
 * <p>{@code --keys N} spreads the checks over N key values (one GCRA cell each); every check is
 * admitted (rate and burst far above the load), which is the costly case: an admitted request
 * waits for its answer, a refused key value is refused on the edge without asking.
 */
public final class FleetCheckLoad {

  private FleetCheckLoad() {}

  public static void main(String[] args) throws Exception {
    Map<String, String> a = new ConcurrentHashMap<>();
    for (int i = 0; i + 1 < args.length; i += 2) {
      a.put(args[i].replaceFirst("^--", ""), args[i + 1]);
    }
    String uri = a.getOrDefault("redis-uri", "redis://127.0.0.1:6379");
    int rate = Integer.parseInt(a.getOrDefault("rate", "10000"));
    int seconds = Integer.parseInt(a.getOrDefault("duration", "20"));
    int warmup = Integer.parseInt(a.getOrDefault("warmup", "5"));
    int keys = Integer.parseInt(a.getOrDefault("keys", "1000"));
    int timeoutMs = Integer.parseInt(a.getOrDefault("timeout-ms", "20"));
    if (rate < 1 || rate > 200_000 || seconds < 1 || seconds > 600 || warmup < 0 || warmup > 120 || keys < 1) {
      throw new IllegalArgumentException("rate 1..200000, duration 1..600 s, warmup 0..120 s, keys >= 1");
    }
    String prefix = "bench-" + Long.toHexString(System.nanoTime()) + ":";
    RedisFleetCounter counter = new RedisFleetCounter(uri, Duration.ofMillis(timeoutMs), prefix, System::nanoTime);
    RedisClient admin = RedisClient.create(uri);
    try (StatefulRedisConnection<String, String> info = admin.connect()) {
      run(counter, rate, warmup, keys, null); // warm-up: JIT, the connection, the script cache
      long roundTripsBefore = scriptCalls(info.sync().info("commandstats"));
      Result result = run(counter, rate, seconds, keys, new Recorder(3_600_000_000L, 3));
      long roundTrips = scriptCalls(info.sync().info("commandstats")) - roundTripsBefore;
      var h = result.recorder.getIntervalHistogram();
      System.out.printf(java.util.Locale.ROOT,
          "{\"rate\": %d, \"seconds\": %d, \"keys\": %d, \"timeout_ms\": %d, \"sent\": %d, \"answered\": %d, "
              + "\"lost\": %d, \"outcomes\": %s, \"redis_round_trips\": %d, \"round_trips_per_check\": %.3f, "
              + "\"latency_us\": {\"p50\": %d, \"p90\": %d, \"p99\": %d, \"p99.9\": %d, \"max\": %d}, "
              + "\"achieved_rate\": %.1f}%n",
          rate, seconds, keys, timeoutMs, result.sent, h.getTotalCount(), result.sent - h.getTotalCount(),
          outcomesJson(result.outcomes), roundTrips, roundTrips / (double) Math.max(1, result.sent),
          h.getValueAtPercentile(50) / 1000, h.getValueAtPercentile(90) / 1000, h.getValueAtPercentile(99) / 1000,
          h.getValueAtPercentile(99.9) / 1000, h.getMaxValue() / 1000, result.sent / (double) seconds);
      deleteKeys(info, prefix);
    } finally {
      counter.close();
      admin.shutdown();
    }
  }

  private record Result(long sent, Recorder recorder, Map<FleetCounter.Outcome, Long> outcomes) {}

  /** Sends {@code rate} checks a second for {@code seconds}, in 1 ms ticks; then waits up to 2 s for the last answers. */
  private static Result run(RedisFleetCounter counter, int rate, int seconds, int keys, Recorder recorder)
      throws InterruptedException {
    Map<FleetCounter.Outcome, LongAdder> outcomes = new EnumMap<>(FleetCounter.Outcome.class);
    for (FleetCounter.Outcome o : FleetCounter.Outcome.values()) {
      outcomes.put(o, new LongAdder());
    }
    AtomicLong answered = new AtomicLong();
    long start = System.nanoTime();
    long total = (long) rate * seconds;
    long sent = 0;
    FleetCounter.Cell cell = counter.cell("bench", 1_000_000, 1_000_000);
    while (sent < total) {
      long due = Math.min(total, (System.nanoTime() - start) * rate / 1_000_000_000L + 1);
      for (; sent < due; sent++) {
        long scheduled = start + sent * 1_000_000_000L / rate;
        String key = "k" + (sent % keys);
        cell.take(key, false).whenComplete((answer, error) -> {
          long took = System.nanoTime() - scheduled;
          outcomes.get(error == null ? answer.outcome() : FleetCounter.Outcome.ERROR).increment();
          if (recorder != null) {
            recorder.recordValue(Math.max(0, took));
          }
          answered.incrementAndGet();
        });
      }
      LockSupport.parkNanos(TimeUnit.MICROSECONDS.toNanos(200));
    }
    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(2);
    while (answered.get() < total && System.nanoTime() < deadline) {
      Thread.sleep(5);
    }
    Map<FleetCounter.Outcome, Long> counts = new EnumMap<>(FleetCounter.Outcome.class);
    outcomes.forEach((o, n) -> counts.put(o, n.sum()));
    return new Result(total, recorder, counts);
  }

  private static String outcomesJson(Map<FleetCounter.Outcome, Long> outcomes) {
    StringBuilder json = new StringBuilder("{");
    outcomes.forEach((o, n) -> json.append(json.length() > 1 ? ", " : "").append('"')
        .append(o.name().toLowerCase(java.util.Locale.ROOT)).append("\": ").append(n));
    return json.append('}').toString();
  }

  /** EVALSHA + EVAL calls in an {@code INFO commandstats} reply. */
  static long scriptCalls(String info) {
    long calls = 0;
    for (String line : info.split("\r?\n")) {
      if (line.startsWith("cmdstat_evalsha:") || line.startsWith("cmdstat_eval:")) {
        int at = line.indexOf("calls=");
        int end = line.indexOf(',', at);
        calls += Long.parseLong(line.substring(at + 6, end));
      }
    }
    return calls;
  }

  private static void deleteKeys(StatefulRedisConnection<String, String> c, String prefix) {
    var keys = c.sync().keys(prefix + "*");
    if (!keys.isEmpty()) {
      c.sync().del(keys.toArray(new String[0]));
    }
  }
}
