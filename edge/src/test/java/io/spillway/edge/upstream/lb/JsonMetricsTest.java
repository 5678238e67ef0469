package io.spillway.edge.upstream.lb;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.List;
import org.junit.jupiter.api.Test;

class JsonMetricsTest {

  @Test
  void flatKeysAndDottedPaths() {
    String body = """
        {"cpu": 0.7, "queue.depth": 12, "system": {"memory": {"used_ratio": 0.4}}, "n": -2}
        """;
    assertThat(JsonMetrics.read(body, List.of("cpu", "queue.depth", "system.memory.used_ratio", "n")))
        .containsExactly(0.7, 12, 0.4, -2);
  }

  @Test
  void aKeyWithDotsWinsOverAPathAndTheLongestPrefixIsTriedFirst() {
    String body = """
        {"a.b": {"c": 1}, "a": {"b": {"c": 2}}, "a.b.c": 3, "x": {"y.z": 4, "y": {"z": 5}}}
        """;
    assertThat(JsonMetrics.read(body, List.of("a.b.c", "x.y.z"))).containsExactly(3, 4);
  }

  @Test
  void missingOrNonNumericValuesGiveNoValue() {
    String body = """
        {"s": "0.5", "b": true, "z": null, "o": {}, "arr": [1], "deep": {"x": 1}}
        """;
    assertThat(JsonMetrics.read(body, List.of("s", "b", "z", "o", "arr", "missing", "deep.y", "deep.x.y")))
        .containsOnly(Double.NaN);
  }

  @Test
  void hugeNumbersReadAsInfinity() {
    assertThat(JsonMetrics.read("{\"cpu\": 1e400}", List.of("cpu"))).containsExactly(Double.POSITIVE_INFINITY);
  }

  @Test
  void aBodyThatIsNotOneStrictJsonObjectIsRefused() {
    for (String body : List.of("", "[1,2]", "0.5", "{\"cpu\": NaN}", "{\"cpu\": 0.5", "{\"cpu\": 0.5} trailing",
        "{\"cpu\": 0.5, \"cpu\": 0.9}", "{'cpu': 1}", "<html>oops</html>")) {
      assertThatThrownBy(() -> JsonMetrics.read(body, List.of("cpu"))).as(body)
          .isInstanceOf(JsonMetrics.MalformedMetricsException.class);
    }
  }

  @Test
  void deepNestingIsRefusedNotAStackOverflow() {
    String body = "{\"a\":".repeat(5000) + "1" + "}".repeat(5000);
    assertThatThrownBy(() -> JsonMetrics.read(body, List.of("a"))).isInstanceOf(
        JsonMetrics.MalformedMetricsException.class);
  }
}
