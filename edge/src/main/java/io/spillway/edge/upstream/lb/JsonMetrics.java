package io.spillway.edge.upstream.lb;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.core.StreamReadFeature;
import com.fasterxml.jackson.databind.DeserializationFeature;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectReader;
import com.fasterxml.jackson.databind.json.JsonMapper;
import java.util.List;

/**
 * Reads the values a metrics poller wants from a JSON body: one object, each value named by a key
 * of it ({@code {"cpu": 0.7}}, also a key with dots in it) or by a dotted path into nested objects
 * ({@code system.cpu.load} in {@code {"system": {"cpu": {"load": 0.7}}}}). A name that is both a
 * key and a path is read as the key; a path tries the longest key at each level first. Only a JSON
 * number counts: a string, boolean, null, object or array, or a missing name, gives no value.
 * A body that is not one strict JSON object (trailing data, a key twice in one object) is refused
 * whole. Jackson's read limits apply (nesting depth, number and string lengths).
 */
public final class JsonMetrics {
  /**
   * Immutable and thread-safe; strict JSON (no NaN, no comments, no trailing commas), nothing after
   * the object, no key twice in one object.
   */
  private static final ObjectReader READER = JsonMapper.builder()
      .enable(DeserializationFeature.FAIL_ON_TRAILING_TOKENS)
      .enable(StreamReadFeature.STRICT_DUPLICATE_DETECTION)
      .build().reader();

  private JsonMetrics() {}

  /** A body that is not one JSON object. */
  public static final class MalformedMetricsException extends RuntimeException {
    MalformedMetricsException(String message) {
      super(message, null, false, false);
    }
  }

  /**
   * The value of each name, NaN when it has none.
   *
   * @throws MalformedMetricsException when the body is not one JSON object
   */
  public static double[] read(String body, List<String> names) {
    JsonNode root;
    try {
      root = READER.readTree(body);
    } catch (JsonProcessingException e) {
      throw new MalformedMetricsException("not JSON");
    }
    if (root == null || !root.isObject()) {
      throw new MalformedMetricsException("not a JSON object");
    }
    double[] values = new double[names.size()];
    for (int i = 0; i < values.length; i++) {
      JsonNode v = find(root, names.get(i), 0);
      values[i] = v != null && v.isNumber() ? v.doubleValue() : Double.NaN;
    }
    return values;
  }

  /** The node at {@code path} from {@code node}: the whole path as a key, else the longest key prefix that leads on. */
  private static JsonNode find(JsonNode node, String path, int depth) {
    if (!node.isObject() || depth > 64) {
      return null;
    }
    JsonNode whole = node.get(path);
    if (whole != null) {
      return whole;
    }
    for (int dot = path.lastIndexOf('.'); dot > 0; dot = path.lastIndexOf('.', dot - 1)) {
      JsonNode child = node.get(path.substring(0, dot));
      if (child != null) {
        JsonNode found = find(child, path.substring(dot + 1), depth + 1);
        if (found != null) {
          return found;
        }
      }
    }
    return null;
  }
}
