package io.spillway.edge.stats;

import com.fasterxml.jackson.core.JsonFactory;
import com.fasterxml.jackson.core.JsonGenerator;
import com.fasterxml.jackson.core.StreamWriteFeature;
import java.io.IOException;
import java.io.StringWriter;
import java.io.UncheckedIOException;
import java.io.Writer;
import java.util.ArrayList;
import java.util.List;

/**
 * Envoy's {@code /stats?format=json}:
 * {@code {"stats":[{"name":..,"value":..},..,{"histograms":{"supported_quantiles":[0,25,..,100],
 * "computed_quantiles":[{"name":..,"values":[{"interval":..,"cumulative":..},..]}]}}]}}. Counters and
 * gauges come sorted by name; the histograms element is last and present only if a histogram
 * matches the filter. A quantile with no values (NaN) is {@code null}, as in Envoy.
 */
public final class JsonStatsFormat {

  private JsonStatsFormat() {}

  public static String render(StatsStore store, StatFilter filter) {
    StringWriter out = new StringWriter();
    try {
      render(store, filter, out);
    } catch (IOException e) {
      throw new UncheckedIOException(e); // a StringWriter does not throw
    }
    return out.toString();
  }

  /** Writes the document to {@code out}; flushes but does not close it. */
  public static void render(StatsStore store, StatFilter filter, Writer out) throws IOException {
    JsonFactory factory = JsonFactory.builder().disable(StreamWriteFeature.AUTO_CLOSE_TARGET).build();
    List<Histogram> histograms = new ArrayList<>();
    try (JsonGenerator json = factory.createGenerator(out)) {
      json.writeStartObject();
      json.writeArrayFieldStart("stats");
      for (Stat stat : store.stats()) {
        if (!filter.matches(stat)) {
          continue;
        }
        if (stat instanceof Histogram histogram) {
          histograms.add(histogram);
          continue;
        }
        json.writeStartObject();
        json.writeStringField("name", stat.name());
        json.writeFieldName("value");
        switch (stat) {
          case Counter counter -> json.writeNumber(counter.value());
          case Gauge gauge -> json.writeNumber(gauge.value());
          case SuppliedGauge gauge -> writeNumber(json, gauge.value());
          case Histogram histogram -> throw new AssertionError(histogram);
        }
        json.writeEndObject();
      }
      if (!histograms.isEmpty()) {
        writeHistograms(json, histograms);
      }
      json.writeEndArray();
      json.writeEndObject();
    }
  }

  private static void writeHistograms(JsonGenerator json, List<Histogram> histograms) throws IOException {
    json.writeStartObject();
    json.writeObjectFieldStart("histograms");
    json.writeArrayFieldStart("supported_quantiles");
    for (double quantile : HistogramSnapshot.SUPPORTED_QUANTILES) {
      writeNumber(json, quantile);
    }
    json.writeEndArray();
    json.writeArrayFieldStart("computed_quantiles");
    for (Histogram histogram : histograms) {
      HistogramSnapshot snapshot = histogram.snapshot();
      json.writeStartObject();
      json.writeStringField("name", histogram.name());
      json.writeArrayFieldStart("values");
      for (int i = 0; i < HistogramSnapshot.SUPPORTED_QUANTILES.size(); i++) {
        json.writeStartObject();
        json.writeFieldName("interval");
        writeNumber(json, snapshot.intervalQuantile(i));
        json.writeFieldName("cumulative");
        writeNumber(json, snapshot.cumulativeQuantile(i));
        json.writeEndObject();
      }
      json.writeEndArray();
      json.writeEndObject();
    }
    json.writeEndArray();
    json.writeEndObject();
    json.writeEndObject();
  }

  /** Integral values without a fraction ({@code 25}, not {@code 25.0}); NaN and infinities as null. */
  private static void writeNumber(JsonGenerator json, double value) throws IOException {
    if (Double.isNaN(value) || Double.isInfinite(value)) {
      json.writeNull();
    } else if (value == Math.rint(value) && Math.abs(value) < 0x1p53) {
      json.writeNumber((long) value);
    } else {
      json.writeNumber(value);
    }
  }
}
