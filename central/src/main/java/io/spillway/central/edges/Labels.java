package io.spillway.central.edges;

import com.fasterxml.jackson.databind.JsonNode;
import io.spillway.central.api.ApiException;
import java.util.Map;
import java.util.TreeMap;
import java.util.regex.Pattern;

/** Validation of edge labels: at most 64, keys and values of bounded length and a safe alphabet. */
final class Labels {

  private static final Pattern KEY = Pattern.compile("[A-Za-z0-9]([A-Za-z0-9._/-]{0,62}[A-Za-z0-9])?");
  private static final Pattern VALUE = Pattern.compile("[A-Za-z0-9._/:-]{0,128}");
  private static final int MAX_LABELS = 64;

  private Labels() {}

  static boolean validKey(String key) {
    return KEY.matcher(key).matches();
  }

  /** Reads a labels object; null or absent means none. */
  static Map<String, String> read(JsonNode node) {
    Map<String, String> labels = new TreeMap<>();
    if (node == null || node.isNull()) {
      return labels;
    }
    if (!node.isObject()) {
      throw ApiException.of(400, "labels must be an object of string values");
    }
    if (node.size() > MAX_LABELS) {
      throw ApiException.of(400, "at most " + MAX_LABELS + " labels");
    }
    for (Map.Entry<String, JsonNode> entry : node.properties()) {
      String key = entry.getKey();
      if (!validKey(key)) {
        throw ApiException.of(400, "label key '" + key + "' must be 1 to 64 letters, digits or . _ / -, starting and ending with a letter or digit");
      }
      if (!entry.getValue().isTextual() || !VALUE.matcher(entry.getValue().asText()).matches()) {
        throw ApiException.of(400, "label " + key + " must be a string of at most 128 letters, digits or . _ / : -");
      }
      labels.put(key, entry.getValue().asText());
    }
    return labels;
  }
}
