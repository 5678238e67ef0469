package io.spillway.policy;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import java.util.List;

/** A field table's values (defaults, bounds) as the schemas of {@link PolicySchema} and {@link RateLimitSchema} write them. */
final class SchemaValues {

  private static final JsonNodeFactory JSON = JsonNodeFactory.instance;

  private SchemaValues() {}

  /** The JSON of a default or bound: null, a mode's or scope's JSON name, a number, a boolean, or a list of strings. */
  static JsonNode json(Object value) {
    return switch (value) {
      case null -> JSON.nullNode();
      case Mode mode -> JSON.textNode(mode.jsonName());
      case RateLimitScope scope -> JSON.textNode(scope.jsonName());
      case Integer i -> JSON.numberNode(i);
      case Double d -> JSON.numberNode(d);
      case Boolean b -> JSON.booleanNode(b);
      case List<?> list -> {
        var array = JSON.arrayNode();
        list.forEach(item -> array.add(String.valueOf(item)));
        yield array;
      }
      default -> throw new IllegalArgumentException("unexpected value " + value);
    };
  }
}
