package io.spillway.edge.stats.sink;

import io.spillway.edge.stats.Counter;
import io.spillway.edge.stats.DecimalText;
import io.spillway.edge.stats.Histogram;
import io.spillway.edge.stats.HistogramValues;
import io.spillway.edge.stats.Scope;
import io.spillway.edge.stats.Stat;
import io.spillway.edge.stats.Tag;
import java.math.BigDecimal;
import java.math.MathContext;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Objects;

/**
 * Envoy's UDP statsd sink ({@code envoy.stat_sinks.statsd}) and, with tags, its DogStatsD sink
 * ({@code envoy.stat_sinks.dog_statsd}). Each flush sends, in this order:
 *
 * <ul>
 *   <li>every used counter as {@code <prefix>.<name>:<delta>|c} (a zero delta too, as Envoy does);
 *   <li>every used gauge as {@code <prefix>.<name>:<value>|g};
 *   <li>every value a histogram recorded since the previous flush as {@code <prefix>.<name>:<value>|ms},
 *       one line per value, or {@code |h} with the fraction for a percent histogram.
 * </ul>
 *
 * <p>statsd names are the flat names ({@code envoy.cluster.backend.upstream_rq_total}). DogStatsD
 * names are the tag-extracted names followed, after the type, by Envoy's tags:
 * {@code envoy.cluster.upstream_rq_total:3|c|#envoy.cluster_name:backend}.
 *
 * <p>Lines are batched as Envoy batches them: with a {@code maxBytesPerDatagram}, newline-separated
 * lines fill a datagram up to that many bytes and a line that alone reaches it goes in a datagram of
 * its own; without one (0, and always for statsd) every line is its own datagram. A datagram that
 * is not sent is counted and lost. Main thread only.
 */
public final class UdpStatsdSink implements StatsSink {

  private static final MathContext SIX_DIGITS = new MathContext(6);

  /** The sinks' own counters (ours; Envoy's UDP sinks count nothing). */
  public record SinkStats(Counter datagramsSent, Counter datagramsFailed) {
    public SinkStats {
      Objects.requireNonNull(datagramsSent, "datagramsSent");
      Objects.requireNonNull(datagramsFailed, "datagramsFailed");
    }

    /** {@code statsd.datagrams_sent} and {@code statsd.datagrams_failed} under {@code root}. */
    public static SinkStats of(Scope root) {
      Scope statsd = root.scope("statsd");
      return new SinkStats(statsd.counter("datagrams_sent"), statsd.counter("datagrams_failed"));
    }
  }

  private final DatagramWriter writer;
  private final String prefix;
  private final boolean tagged;
  private final int maxBytesPerDatagram;
  private final SinkStats stats;
  private final StringBuilder batch = new StringBuilder();
  private int batchBytes;

  private UdpStatsdSink(DatagramWriter writer, String prefix, boolean tagged, int maxBytesPerDatagram,
      SinkStats stats) {
    this.writer = Objects.requireNonNull(writer, "writer");
    this.prefix = Objects.requireNonNull(prefix, "prefix");
    this.tagged = tagged;
    if (maxBytesPerDatagram < 0) {
      throw new IllegalArgumentException("maxBytesPerDatagram must not be negative: " + maxBytesPerDatagram);
    }
    this.maxBytesPerDatagram = maxBytesPerDatagram;
    this.stats = Objects.requireNonNull(stats, "stats");
  }

  /** A statsd sink: flat names, no tags, one line per datagram. */
  public static UdpStatsdSink statsd(DatagramWriter writer, String prefix, SinkStats stats) {
    return new UdpStatsdSink(writer, prefix, false, 0, stats);
  }

  /**
   * A DogStatsD sink.
   *
   * @param maxBytesPerDatagram 0 for one line per datagram
   */
  public static UdpStatsdSink dogStatsd(DatagramWriter writer, String prefix, int maxBytesPerDatagram,
      SinkStats stats) {
    return new UdpStatsdSink(writer, prefix, true, maxBytesPerDatagram, stats);
  }

  @Override
  public void flush(MetricSnapshot snapshot) {
    for (MetricSnapshot.CounterDelta c : snapshot.counters()) {
      add(line(c.counter(), Long.toString(c.delta()), "|c"));
    }
    for (MetricSnapshot.GaugeValue g : snapshot.gauges()) {
      add(line(g.gauge(), DecimalText.format(g.value()), "|g"));
    }
    for (MetricSnapshot.HistogramSample h : snapshot.histograms()) {
      Histogram histogram = h.histogram();
      HistogramValues values = h.values();
      boolean percent = histogram.unit() == Histogram.Unit.PERCENT;
      for (int i = 0; i < values.size(); i++) {
        String line = percent
            ? line(histogram, fraction(values.value(i), histogram.unit().scale()), "|h")
            : line(histogram, Long.toString(values.value(i)), "|ms");
        for (long n = values.count(i); n > 0; n--) {
          add(line);
        }
      }
    }
    sendBatch();
  }

  /** One statsd line, without a newline. */
  String line(Stat stat, String value, String type) {
    StringBuilder out = new StringBuilder(prefix.length() + 64);
    out.append(prefix).append('.').append(tagged ? stat.statName().tagExtractedName() : stat.name())
        .append(':').append(value).append(type);
    List<Tag> tags = stat.statName().tags();
    if (tagged && !tags.isEmpty()) {
      out.append("|#");
      for (int i = 0; i < tags.size(); i++) {
        if (i > 0) {
          out.append(',');
        }
        out.append(tags.get(i).envoyName()).append(':').append(tags.get(i).value());
      }
    }
    return out.toString();
  }

  /** A percent histogram's value as Envoy prints the float it divides it into: six significant digits. */
  static String fraction(long value, long scale) {
    return new BigDecimal(value).divide(new BigDecimal(scale), SIX_DIGITS).stripTrailingZeros().toPlainString();
  }

  private void add(String line) {
    int bytes = utf8Length(line);
    if (bytes >= maxBytesPerDatagram) {
      send(line);
      return;
    }
    if (batchBytes + bytes + 1 > maxBytesPerDatagram) {
      sendBatch();
    } else if (batchBytes > 0) {
      batch.append('\n');
      batchBytes++;
    }
    batch.append(line);
    batchBytes += bytes;
  }

  private void sendBatch() {
    if (batchBytes == 0) {
      return;
    }
    send(batch.toString());
    batch.setLength(0);
    batchBytes = 0;
  }

  private void send(String datagram) {
    if (writer.send(ByteBuffer.wrap(datagram.getBytes(StandardCharsets.UTF_8)))) {
      stats.datagramsSent().inc();
    } else {
      stats.datagramsFailed().inc();
    }
  }

  private static int utf8Length(String s) {
    int bytes = 0;
    for (int i = 0; i < s.length(); i++) {
      char c = s.charAt(i);
      if (c < 0x80) {
        bytes++;
      } else if (c < 0x800) {
        bytes += 2;
      } else if (Character.isHighSurrogate(c)) {
        bytes += 4;
        i++;
      } else {
        bytes += 3;
      }
    }
    return bytes;
  }

  @Override
  public void close() {
    writer.close();
  }
}
