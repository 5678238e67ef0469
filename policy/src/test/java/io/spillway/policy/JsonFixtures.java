package io.spillway.policy;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.io.UncheckedIOException;

/** Builds small JSON policies for tests. */
final class JsonFixtures {

  private JsonFixtures() {}

  /** A policy setting one field, its value given as JSON text (e.g. {@code 1.5}, {@code "x"}, {@code true}). */
  static ObjectNode withValue(String path, String jsonValue) {
    return withValue(path, parse(jsonValue));
  }

  /** A policy setting one field to a JSON value. */
  static ObjectNode withValue(String path, JsonNode value) {
    ObjectNode root = new ObjectMapper().createObjectNode();
    ObjectNode node = root;
    String[] segments = path.split("\\.");
    for (int i = 0; i < segments.length - 1; i++) {
      node = node.has(segments[i]) ? (ObjectNode) node.get(segments[i]) : node.putObject(segments[i]);
    }
    node.set(segments[segments.length - 1], value);
    return root;
  }

  static JsonNode parse(String json) {
    try {
      return new ObjectMapper().readTree(json);
    } catch (JsonProcessingException e) {
      throw new UncheckedIOException(e);
    }
  }
}
