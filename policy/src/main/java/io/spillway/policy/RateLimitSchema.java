package io.spillway.policy;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.util.List;

/**
 * Machine-readable descriptions of the {@code rateLimits} section, generated from the
 * {@link RateLimitField} table that {@link RateLimitJson} validates with (as {@link PolicySchema}
 * does for the overload section):
 *
 * <ul>
 *   <li>{@link #describe()} — for an editor: every field's path template, type, default, range,
 *       label, hint and message templates ({@code {i}} stands for the limit's index);
 *   <li>{@link #jsonSchema()} — the {@code RateLimitPolicy} schema of central's OpenAPI file.
 * </ul>
 */
public final class RateLimitSchema {

  private static final JsonNodeFactory JSON = JsonNodeFactory.instance;
  private static final String INDEX = "{i}";

  private RateLimitSchema() {}

  /** The description of every field, in table order, with the section's limits. */
  public static ObjectNode describe() {
    ObjectNode root = JSON.objectNode()
        .put("section", RateLimitsPolicy.SECTION)
        .put("maxLimits", RateLimitField.MAX_LIMITS)
        .put("uniqueField", RateLimitField.NAME.key());
    ArrayNode fields = root.putArray("fields");
    for (RateLimitField field : RateLimitField.values()) {
      RateLimitField.At at = field.at(0);
      ObjectNode node = fields.addObject()
          .put("path", field.pathTemplate())
          .put("key", field.key())
          .put("label", field.label())
          .put("type", field.type().schemaName())
          .put("required", field.required());
      node.set("default", value(field.defaultValue()));
      node.set("min", value(field.min()));
      node.set("max", value(field.max()));
      ArrayNode allowed = node.putArray("allowedValues");
      field.allowedValues().forEach(allowed::add);
      node.put("hint", field.hint());
      ObjectNode messages = node.putObject("messages").put("type", template(at.typeMessage()));
      messages.put("range", template(at.rangeMessage()));
      messages.put("required", field.required() ? template(at.requiredMessage()) : null);
    }
    return root;
  }

  /**
   * The JSON Schema of {@code RateLimitPolicy} (draft 2020-12, usable as an OpenAPI 3.1 component);
   * {@code additionalProperties: true} because unknown fields are ignored.
   */
  public static ObjectNode jsonSchema() {
    ObjectNode root = JSON.objectNode()
        .put("$schema", "https://json-schema.org/draft/2020-12/schema")
        .put("title", "RateLimitPolicy")
        .put("description", "Rate limits of one edge: each limit is a token bucket per distinct value of its key; "
            + "over it, shadow counts and enforce answers 429 with Retry-After. Names must be unique. Unknown fields "
            + "are ignored.")
        .put("type", "object")
        .put("additionalProperties", true);
    ObjectNode limits = root.putObject("properties").putObject("limits")
        .put("type", "array")
        .put("maxItems", RateLimitField.MAX_LIMITS)
        .put("description", "The limits; a request is checked against every one whose key it has.");
    ObjectNode item = limits.putObject("items")
        .put("type", "object")
        .put("additionalProperties", true);
    ArrayNode required = item.putArray("required");
    ObjectNode properties = item.putObject("properties");
    for (RateLimitField field : RateLimitField.values()) {
      if (field.required()) {
        required.add(field.key());
      }
      ObjectNode node = properties.putObject(field.key()).put("type", field.type().jsonSchemaType());
      switch (field.type()) {
        case ENUM -> {
          ArrayNode values = node.putArray("enum");
          field.allowedValues().forEach(values::add);
        }
        case INTEGER, NUMBER -> {
          node.set("minimum", value(field.min()));
          node.set("maximum", value(field.max()));
        }
        case STRING_LIST -> {
          node.putObject("items").put("type", "string").put("minLength", 1).put("maxLength", RateLimitField.MAX_EXEMPT_LENGTH);
          node.put("maxItems", field.max().intValue());
        }
        case STRING -> {
          if (field == RateLimitField.NAME) {
            node.put("pattern", "^[A-Za-z0-9._-]{1," + RateLimitField.MAX_NAME_LENGTH + "}$");
          } else {
            node.put("pattern", "^(clientAddress|route|header:[!#$%&'*+.^_`|~0-9A-Za-z-]{1,128})$");
          }
        }
        case BOOLEAN -> { }
      }
      if (field.defaultValue() != null) {
        node.set("default", value(field.defaultValue()));
      }
      node.put("title", field.label()).put("description", field.hint());
    }
    return root;
  }

  private static String template(String message) {
    return message == null ? null : message.replace(RateLimitsPolicy.limitPath(0), RateLimitsPolicy.SECTION + ".limits[" + INDEX + "]");
  }

  private static JsonNode value(Object value) {
    return switch (value) {
      case null -> JSON.nullNode();
      case Mode mode -> JSON.textNode(mode.jsonName());
      case Integer i -> JSON.numberNode(i);
      case Double d -> JSON.numberNode(d);
      case List<?> list -> JSON.arrayNode();
      default -> throw new IllegalArgumentException("unexpected value " + value);
    };
  }
}
