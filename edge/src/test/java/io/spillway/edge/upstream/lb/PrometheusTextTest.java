package io.spillway.edge.upstream.lb;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.spillway.edge.upstream.lb.PrometheusText.Selector;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

class PrometheusTextTest {

  private static Selector sel(String name) {
    return new Selector(name, Map.of());
  }

  private static PrometheusText.Result read(String body, Selector... selectors) {
    return PrometheusText.read(body, List.of(selectors));
  }

  @Test
  void readsGaugesAndUntypedSamplesAndIgnoresCommentsHelpAndType() {
    String body = """
        # HELP cpu_ratio CPU in use, 0..1
        # TYPE cpu_ratio gauge
        cpu_ratio 0.72
        # a plain comment
          #    TYPE    queue_depth   untyped
        queue_depth{pool="main"}    17 1395066363000

        mem_bytes 1.5e9
        """;
    PrometheusText.Result r = read(body, sel("cpu_ratio"), sel("queue_depth"), sel("mem_bytes"), sel("absent"));
    assertThat(r.values()).containsExactly(0.72, 17, 1.5e9, Double.NaN);
    assertThat(r.malformedLines()).isZero();
  }

  @Test
  void countersHistogramsAndSummariesDoNotCount() {
    String body = """
        # TYPE requests_total counter
        requests_total 1027
        # TYPE latency histogram
        latency_bucket{le="0.1"} 3
        # TYPE rpc summary
        rpc 4
        """;
    PrometheusText.Result r = read(body, sel("requests_total"), sel("rpc"));
    assertThat(r.values()).containsExactly(Double.NaN, Double.NaN);
    assertThat(r.malformedLines()).isZero();
  }

  @Test
  void labelMatchersPickTheSeriesAndTheLargestMatchCounts() {
    String body = """
        cpu{core="0",mode="user"} 0.2
        cpu{core="1",mode="user"} 0.9
        cpu{core="1",mode="idle",} 0.05
        cpu 0.33
        """;
    PrometheusText.Result r = read(body, new Selector("cpu", Map.of("mode", "user")),
        new Selector("cpu", Map.of("core", "1", "mode", "idle")), new Selector("cpu", Map.of("mode", "system")),
        sel("cpu"));
    assertThat(r.values()).containsExactly(0.9, 0.05, Double.NaN, 0.9);
  }

  @Test
  void labelValuesAreUnescaped() {
    String body = "path_usage{path=\"C:\\\\DIR\\\\FILE.TXT\",msg=\"say \\\"hi\\\"\\n\"} 0.5\n";
    PrometheusText.Result r = read(body,
        new Selector("path_usage", Map.of("path", "C:\\DIR\\FILE.TXT", "msg", "say \"hi\"\n")));
    assertThat(r.values()).containsExactly(0.5);
    assertThat(r.malformedLines()).isZero();
  }

  @Test
  void specialValuesAreReadAsTheFormatWritesThem() {
    String body = """
        a NaN
        b +Inf
        c -Inf
        d -3.5
        e inf
        """;
    PrometheusText.Result r = read(body, sel("a"), sel("b"), sel("c"), sel("d"), sel("e"));
    // NaN samples are left out (no value); infinities and negatives are reported as they are
    assertThat(r.values()).containsExactly(Double.NaN, Double.POSITIVE_INFINITY, Double.NEGATIVE_INFINITY, -3.5,
        Double.POSITIVE_INFINITY);
    assertThat(r.malformedLines()).isZero();
  }

  @Test
  void aNanSampleDoesNotHideAnotherMatch() {
    PrometheusText.Result r = read("x{a=\"1\"} 0.4\nx{a=\"2\"} NaN\n", sel("x"));
    assertThat(r.values()).containsExactly(0.4);
  }

  @Test
  void malformedLinesAreCountedAndSkippedNeverFatal() {
    String body = String.join("\n",
        "good 0.5",
        "9bad_name 1",                 // name starts with a digit
        "no_value",                    // no value
        "bad_value 0.5x",              // not a float
        "java_suffix 1d",              // Java would read this, Go would not
        "hex 0x1p3",                   // hexadecimal floats are not the text format's
        "unterminated{a=\"b} 1",       // label value never closed
        "bad_escape{a=\"\\t\"} 1",     // \\t is not an escape of the format
        "dup{a=\"1\",a=\"2\"} 1",      // a label twice
        "no_brace{a=\"1\" 1",          // label set never closed
        "stamp 1 12.5",                // timestamp not an integer
        "extra 1 2 3",                 // a token too many
        "name-dash 1",                 // name runs into a character names cannot have
        "# TYPE good",                 // TYPE without a type
        "# TYPE good wobbly",          // unknown type
        "also_good{} 0.25",
        "");
    PrometheusText.Result r = read(body, sel("good"), sel("also_good"), sel("dup"), sel("extra"));
    assertThat(r.values()).containsExactly(0.5, 0.25, Double.NaN, Double.NaN);
    assertThat(r.malformedLines()).isEqualTo(14);
  }

  @Test
  void aHugeLineIsSkippedAndTheRestIsRead() {
    String huge = "huge{a=\"" + "x".repeat(PrometheusText.MAX_LINE_CHARS) + "\"} 1";
    PrometheusText.Result r = read(huge + "\ncpu 0.5\n" + "y".repeat(3 * PrometheusText.MAX_LINE_CHARS), sel("cpu"),
        sel("huge"));
    assertThat(r.values()).containsExactly(0.5, Double.NaN);
    assertThat(r.malformedLines()).isEqualTo(2);
  }

  @Test
  void crlfLineEndingsAndAMissingFinalNewlineAreTolerated() {
    PrometheusText.Result r = read("a 1\r\nb 2", sel("a"), sel("b"));
    assertThat(r.values()).containsExactly(1, 2);
    assertThat(r.malformedLines()).isZero();
  }

  @Test
  void aTypeLineCountsOnlyForTheSamplesAfterIt() {
    // The format puts TYPE before the first sample; a late one does not turn earlier samples into counters.
    PrometheusText.Result r = read("g 0.3\n# TYPE g counter\ng 0.9\n", sel("g"));
    assertThat(r.values()).containsExactly(0.3);
  }

  @Test
  void emptyAndBinaryGarbageBodiesGiveNoValues() {
    assertThat(read("", sel("a")).values()).containsExactly(Double.NaN);
    PrometheusText.Result r = read("\u0000\u0001\u00ff{{{}}} \"\n\t\t\n", sel("a"));
    assertThat(r.values()).containsExactly(Double.NaN);
    assertThat(r.malformedLines()).isEqualTo(1);
  }

  @Test
  void floatTokens() {
    assertThat(PrometheusText.parseFloat("1")).isEqualTo(1);
    assertThat(PrometheusText.parseFloat("-.5")).isEqualTo(-0.5);
    assertThat(PrometheusText.parseFloat("+2.e3")).isEqualTo(2000);
    assertThat(PrometheusText.parseFloat("1e999")).isEqualTo(Double.POSITIVE_INFINITY);
    assertThat(PrometheusText.parseFloat("nan")).isNaN();
    assertThatThrownBy(() -> PrometheusText.parseFloat("Infinity1")).isInstanceOf(NumberFormatException.class);
    assertThatThrownBy(() -> PrometheusText.parseFloat("")).isInstanceOf(NumberFormatException.class);
    assertThatThrownBy(() -> PrometheusText.parseFloat(".")).isInstanceOf(NumberFormatException.class);
  }
}
