package io.spillway.policy;

import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;

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
  private static final String ENTRY = "{j}";
  private static final String NAME = "{name}";
  private static final String FIRST = "{first}";

  private RateLimitSchema() {}

  /**
   * The description of every field, in table order, with the section's limits: for each field its
   * path template, key, label, type, whether it is required, default, range, allowed values, the
   * pattern of a string field, the rules of an exempt entry, hint, and central's messages with
   * {@code {i}} for the limit's index ({@code {j}} for an exempt entry's); then the message of a
   * repeated name ({@code {name}}, {@code {first}}: the index of the limit that has it first).
   */
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
      node.set("default", SchemaValues.json(field.defaultValue()));
      node.set("min", SchemaValues.json(field.min()));
      node.set("max", SchemaValues.json(field.max()));
      ArrayNode allowed = node.putArray("allowedValues");
      field.allowedValues().forEach(allowed::add);
      node.put("pattern", field.pattern());
      if (field.type() == FieldType.STRING_LIST) {
        node.putObject("entries")
            .put("minLength", 1)
            .put("maxLength", RateLimitField.MAX_EXEMPT_LENGTH)
            .put("addressKey", RateLimitField.ADDRESS_KEY)
            .put("addressPattern", RateLimitField.ADDRESS_PATTERN)
            .put("tierKey", "tier")
            .set("tiers", JsonNodeFactory.instance.arrayNode().addAll(RateLimitKey.TIERS.stream()
                .map(JsonNodeFactory.instance::textNode).toList()));
      }
      node.put("hint", field.hint());
      ObjectNode messages = node.putObject("messages").put("type", template(at.typeMessage()));
      messages.put("range", template(at.rangeMessage()));
      messages.put("required", field.required() ? template(at.requiredMessage()) : null);
      messages.put("pattern", template(at.patternMessage()));
      if (field.type() == FieldType.STRING_LIST) {
        messages.put("entryLength", template(at.entryLengthMessage(ENTRY)));
        messages.put("entryAddress", template(at.entryAddressMessage(ENTRY)));
        messages.put("entryTier", template(at.entryTierMessage(ENTRY)));
      }
    }
    String duplicate = RateLimitField.NAME.at(0).duplicateMessage(NAME, RateLimitField.NAME.at(1))
        .replace(RateLimitsPolicy.limitPath(1), RateLimitsPolicy.SECTION + ".limits[" + FIRST + "]");
    root.put("duplicateMessage", template(duplicate));
    return root;
  }

  /** {@link #describe()} as JSON text, as central serves it at {@code /schemas/rate-limits-policy.json}. */
  public static String describeAsString() {
    return describe().toString();
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
          node.set("minimum", SchemaValues.json(field.min()));
          node.set("maximum", SchemaValues.json(field.max()));
        }
        case STRING_LIST -> {
          node.putObject("items").put("type", "string").put("minLength", 1).put("maxLength", RateLimitField.MAX_EXEMPT_LENGTH);
          node.put("maxItems", field.max().intValue());
        }
        case STRING -> {
          node.put("pattern", "^" + field.pattern() + "$");
        }
        case BOOLEAN -> { }
      }
      if (field.defaultValue() != null) {
        node.set("default", SchemaValues.json(field.defaultValue()));
      }
      node.put("title", field.label()).put("description", field.hint());
    }
    return root;
  }

  private static String template(String message) {
    return message == null ? null : message.replace(RateLimitsPolicy.limitPath(0), RateLimitsPolicy.SECTION + ".limits[" + INDEX + "]");
  }
}
