package io.spillway.bench.overload;

import java.io.IOException;
import java.io.PrintWriter;
import java.nio.file.Path;
import java.util.Locale;
import java.util.Map;
import java.util.TreeMap;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * The edge's outbound guard over a run: per peer, the breaker state, calls in flight and waiting,
 * and the enforce refusals by reason, from the {@code http_client_guard_*} series of
 * {@code /stats/prometheus}, sampled on a thread of its own into a TSV file (one line per peer and
 * sample) that {@code bench/lib/overload_report.py} reads.
 */
final class GuardSampler {
  private GuardSampler() {}

  private static final Pattern SERIES = Pattern.compile(
      "(?m)^(http_client_guard_[a-z_]+)\\{([^}]*)\\}\\s+([0-9.eE+-]+)");
  private static final Pattern LABEL = Pattern.compile("([a-z_]+)=\"([^\"]*)\"");

  /** Per peer: breaker state, in flight, waiting, enforce refusals breaker_open / queue_full / queue_timeout. */
  private static final class Row {
    final long[] v = {-1, -1, -1, 0, 0, 0};
  }

  /** Polls {@code promUrl} every {@code periodMs} until {@code endNanos} or an interrupt; time in ms since {@code t0}. */
  static Thread thread(String promUrl, long periodMs, Path out, long t0, long endNanos) {
    return PeriodicPoll.thread("guard-sampler", new PeriodicPoll.Sample() {
      @Override
      public String header() {
        return "t_ms\tpeer\tbreaker_state\tin_flight\twaiting\trejected_breaker_open\trejected_queue_full\trejected_queue_timeout";
      }

      @Override
      public void take(PeriodicPoll.Fetch fetch, PrintWriter w, long tMs, int i) throws IOException, InterruptedException {
        for (Map.Entry<String, Row> e : parse(fetch.get(promUrl)).entrySet()) {
          long[] v = e.getValue().v;
          w.printf(Locale.ROOT, "%d\t%s\t%d\t%d\t%d\t%d\t%d\t%d%n", tMs, e.getKey(), v[0], v[1], v[2], v[3], v[4], v[5]);
        }
      }

      @Override
      public String failure(long tMs) {
        return tMs + "\t-\t-1\t-1\t-1\t-1\t-1\t-1";
      }
    }, periodMs, out, t0, endNanos);
  }

  private static Map<String, Row> parse(String body) {
    Map<String, Row> peers = new TreeMap<>();
    Matcher m = SERIES.matcher(body);
    while (m.find()) {
      Map<String, String> labels = new TreeMap<>();
      Matcher l = LABEL.matcher(m.group(2));
      while (l.find()) {
        labels.put(l.group(1), l.group(2));
      }
      String peer = labels.get("peer");
      if (peer == null) {
        continue;
      }
      long value = (long) Double.parseDouble(m.group(3));
      long[] v = peers.computeIfAbsent(peer, k -> new Row()).v;
      switch (m.group(1)) {
        case "http_client_guard_breaker_state" -> v[0] = value;
        case "http_client_guard_in_flight" -> v[1] = value;
        case "http_client_guard_waiting" -> v[2] = value;
        case "http_client_guard_rejected_total" -> {
          if ("enforce".equals(labels.get("mode"))) {
            switch (labels.getOrDefault("reason", "")) {
              case "breaker_open" -> v[3] += value;
              case "queue_full" -> v[4] += value;
              case "queue_timeout" -> v[5] += value;
              default -> { }
            }
          }
        }
        default -> { }
      }
    }
    return peers;
  }
}
