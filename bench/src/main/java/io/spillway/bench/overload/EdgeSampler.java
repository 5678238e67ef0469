package io.spillway.bench.overload;

import java.io.IOException;
import java.io.PrintWriter;
import java.nio.file.Path;
import java.util.Locale;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * The edge's admission state over a run: the learned limit, in flight, refusals per tier, executor
 * lag, baseline and capacity from {@code /overload} (and the lag from Prometheus), sampled on a
 * thread of its own into a TSV file that {@code bench/lib/overload_report.py} reads.
 */
final class EdgeSampler {
  private EdgeSampler() {}

  private static final Pattern BASELINE = Pattern.compile("\"baseline_ms\"\\s*:\\s*([0-9.Ee+-]+)");
  private static final Pattern CAPACITY = Pattern.compile("\"capacity\"\\s*:\\s*([0-9.Ee+-]+)");
  private static final Pattern NUM = Pattern.compile("\"(limit|in_flight|refused_shadow|refused_enforce)\"\\s*:\\s*(\\d+)");
  private static final Pattern LAG = Pattern.compile("(?m)^http_executor_lag_seconds(?:\\{[^}]*\\})?\\s+([0-9.eE+-]+)");

  /**
   * Polls /overload (and, every 20th sample, Prometheus when {@code promUrl} is set) every
   * {@code periodMs} until {@code endNanos} or an interrupt; one TSV line per sample, its time in
   * ms since {@code t0}.
   */
  static Thread thread(String url, String promUrl, long periodMs, Path out, long t0, long endNanos) {
    return PeriodicPoll.thread("sampler", new PeriodicPoll.Sample() {
      private double lagMs = -1;

      @Override
      public String header() {
        return "t_ms\tlimit\tin_flight\trefused_start\trefused_continuation\trefused_proxy\texecutor_lag_ms\tbaseline_ms\tcapacity";
      }

      @Override
      public void take(PeriodicPoll.Fetch fetch, PrintWriter w, long tMs, int i) throws IOException, InterruptedException {
        String body = fetch.get(url);
        if (promUrl != null && i % 20 == 0) {
          Matcher m = LAG.matcher(fetch.get(promUrl));
          lagMs = m.find() ? Double.parseDouble(m.group(1)) * 1000 : -1;
        }
        Matcher b = BASELINE.matcher(body);
        double baselineMs = b.find() ? Double.parseDouble(b.group(1)) : -1;
        Matcher c = CAPACITY.matcher(body);
        double capacity = c.find() ? Double.parseDouble(c.group(1)) : -1;
        Matcher m = NUM.matcher(body);
        long limit = -1;
        long inFlight = -1;
        long[] refused = new long[3];
        int tier = 0;
        while (m.find()) {
          long v = Long.parseLong(m.group(2));
          switch (m.group(1)) {
            case "limit" -> limit = v;
            case "in_flight" -> inFlight = v;
            case "refused_shadow" -> { if (tier < 3) refused[tier] += v; }
            case "refused_enforce" -> { if (tier < 3) refused[tier] += v; tier++; }
            default -> { }
          }
        }
        // Tier order in /overload follows Tier.values(): start, continuation, proxy.
        w.printf(Locale.ROOT, "%d\t%d\t%d\t%d\t%d\t%d\t%.1f\t%.1f\t%.1f%n", tMs, limit,
            inFlight, refused[0], refused[1], refused[2], lagMs, baselineMs, capacity);
      }

      @Override
      public String failure(long tMs) {
        return tMs + "\t-1\t-1\t-1\t-1\t-1\t-1\t-1\t-1";
      }
    }, periodMs, out, t0, endNanos);
  }
}
