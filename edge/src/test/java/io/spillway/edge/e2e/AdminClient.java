package io.spillway.edge.e2e;

import io.spillway.testkit.EdgeProcess;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.URLEncoder;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.Map;

/** The admin endpoint of an {@link EdgeProcess}: plain requests, stat values and Prometheus samples. */
final class AdminClient {

  private static final Duration TIMEOUT = Duration.ofSeconds(10);

  private final EdgeProcess edge;
  private final HttpClient http = HttpClient.newBuilder()
      .version(HttpClient.Version.HTTP_1_1)
      .connectTimeout(TIMEOUT)
      .build();

  AdminClient(EdgeProcess edge) {
    this.edge = edge;
  }

  HttpResponse<String> get(String path) {
    return send("GET", path);
  }

  HttpResponse<String> post(String path) {
    return send("POST", path);
  }

  HttpResponse<String> send(String method, String path) {
    HttpRequest request = HttpRequest.newBuilder(edge.adminUri(path))
        .timeout(TIMEOUT)
        .method(method, HttpRequest.BodyPublishers.noBody())
        .build();
    try {
      return http.send(request, HttpResponse.BodyHandlers.ofString());
    } catch (IOException e) {
      throw new UncheckedIOException(method + " " + request.uri() + " failed; edge log ends with:\n"
          + edge.logTail(), e);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException("interrupted during " + method + " " + request.uri(), e);
    }
  }

  /**
   * The value of one counter or gauge from {@code /stats} (Envoy's text form, {@code name: value}).
   *
   * @throws AssertionError when the edge does not report a stat of that name
   */
  long stat(String name) {
    String filter = URLEncoder.encode("^" + name.replace(".", "\\.") + "$", StandardCharsets.UTF_8);
    HttpResponse<String> response = get("/stats?filter=" + filter);
    if (response.statusCode() != 200) {
      throw new AssertionError("GET /stats answered " + response.statusCode() + ": " + response.body());
    }
    String prefix = name + ": ";
    for (String line : response.body().lines().toList()) {
      if (line.startsWith(prefix)) {
        return Long.parseLong(line.substring(prefix.length()).trim());
      }
    }
    throw new AssertionError("no stat " + name + " in /stats; it holds:\n" + get("/stats").body());
  }

  /**
   * The value of the Prometheus sample {@code metric} whose labels are exactly {@code labels}
   * (in any order), from {@code /stats/prometheus}.
   *
   * @throws AssertionError when there is no such sample
   */
  double prometheusSample(String metric, Map<String, String> labels) {
    String body = get("/stats/prometheus").body();
    for (String line : body.lines().toList()) {
      if (!line.startsWith(metric + "{")) {
        continue;
      }
      int close = line.lastIndexOf('}');
      if (close < 0) {
        continue;
      }
      if (parseLabels(line.substring(metric.length() + 1, close)).equals(labels)) {
        return Double.parseDouble(line.substring(close + 1).trim());
      }
    }
    throw new AssertionError("no sample " + metric + labels + " in /stats/prometheus:\n" + body);
  }

  /** {@code a="x",b="y"} → {a=x, b=y}; values here never hold commas or escapes. */
  private static Map<String, String> parseLabels(String text) {
    Map<String, String> labels = new LinkedHashMap<>();
    for (String pair : text.split(",")) {
      int eq = pair.indexOf('=');
      if (eq <= 0) {
        continue;
      }
      String value = pair.substring(eq + 1).trim();
      if (value.length() >= 2 && value.startsWith("\"") && value.endsWith("\"")) {
        value = value.substring(1, value.length() - 1);
      }
      labels.put(pair.substring(0, eq).trim(), value);
    }
    return labels;
  }
}
