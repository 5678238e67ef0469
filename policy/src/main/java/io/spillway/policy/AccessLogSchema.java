package io.spillway.policy;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;

/**
 * Machine-readable descriptions of the {@code accessLog} section, generated from the
 * {@link AccessLogField} table that {@link AccessLogJson} validates with (as {@link RateLimitSchema}
 * does for the rate limits):
 *
 * <ul>
 *   <li>{@link #describe()} — for an editor: every field's path, kind, default, range, allowed
 *       values, label, hint and messages, the operators a format may name and the message
 *       templates of every other rule ({@code {path}}, {@code {position}}, {@code {name}},
 *       {@code {key}}, {@code {i}}, {@code {flag}});
 *   <li>{@link #jsonSchema()} — the {@code AccessLogPolicy} schema of central's OpenAPI file.
 * </ul>
 */
public final class AccessLogSchema {

  private static final JsonNodeFactory JSON = JsonNodeFactory.instance;
  /** Placeholders of the message templates: the format string's path, a JSON key, a list index, a flag. */
  private static final String PATH = "{path}";
  private static final String KEY = "{key}";
  private static final String INDEX = "{i}";
  private static final String FLAG = "{flag}";

  private AccessLogSchema() {}

  /** The description of every field, in table order, with the section's limits. */
  public static ObjectNode describe() {
    ObjectNode root = JSON.objectNode()
        .put("section", AccessLogPolicy.SECTION)
        .put("maxFormatLength", AccessLogFormat.MAX_LENGTH)
        .put("maxJsonKeys", AccessLogFormat.MAX_JSON_KEYS)
        .put("maxPathLength", AccessLogFormat.MAX_PATH_LENGTH);
    root.put("maxJsonKeyLength", AccessLogFormat.MAX_JSON_KEY_LENGTH);
    ArrayNode operators = root.putArray("operators");
    AccessLogFormat.OPERATORS.stream().sorted().forEach(operators::add);
    ObjectNode formatProblems = root.putObject("formatProblems");
    for (AccessLogFormat.FormatProblem problem : AccessLogFormat.FormatProblem.values()) {
      formatProblems.put(camelCase(problem.name()), PATH + " " + problem.template());
    }
    root.put("pathSegmentPattern", AccessLogFormat.PATH_SEGMENT);
    ObjectNode pathProblems = root.putObject("pathProblems");
    String file = AccessLogField.DESTINATION.path() + ".file ";
    for (AccessLogFormat.PathProblem problem : AccessLogFormat.PathProblem.values()) {
      pathProblems.put(camelCase(problem.name()), file + problem.text());
    }
    root.putObject("messages")
        .put("formatAndJson", AccessLogField.formatAndJsonMessage())
        .put("jsonKeyLength", AccessLogField.jsonKeyLengthMessage())
        .put("jsonValueType", AccessLogField.jsonValueTypeMessage(KEY))
        .put("unknownFlag", AccessLogField.unknownFlagMessage(INDEX, FLAG))
        .put("fileType", AccessLogField.fileTypeMessage());
    ArrayNode fields = root.putArray("fields");
    for (AccessLogField field : AccessLogField.values()) {
      ObjectNode node = fields.addObject()
          .put("path", field.path())
          .put("key", field.key())
          .put("label", field.label())
          .put("type", field.kind().schemaName());
      node.set("default", value(field.defaultValue()));
      node.set("min", value(field.min()));
      node.set("max", value(field.max()));
      ArrayNode allowed = node.putArray("allowedValues");
      field.allowedValues().forEach(allowed::add);
      node.put("hint", field.hint());
      node.putObject("messages").put("type", field.typeMessage()).put("range", field.rangeMessage())
          .put("required", field.requiredMessage());
    }
    return root;
  }

  /** {@link #describe()} as JSON text, as central serves it at {@code /schemas/access-log-policy.json}. */
  public static String describeAsString() {
    return describe().toString();
  }

  private static String camelCase(String constant) {
    StringBuilder out = new StringBuilder();
    boolean upper = false;
    for (char c : constant.toCharArray()) {
      if (c == '_') {
        upper = true;
      } else {
        out.append(upper ? c : Character.toLowerCase(c));
        upper = false;
      }
    }
    return out.toString();
  }

  /**
   * The JSON Schema of {@code AccessLogPolicy} (draft 2020-12, usable as an OpenAPI 3.1 component);
   * {@code additionalProperties: true} because unknown fields are ignored. The format rules the
   * schema cannot state (well-formed command operators, known names) are in the descriptions.
   */
  public static ObjectNode jsonSchema() {
    ObjectNode root = JSON.objectNode()
        .put("$schema", "https://json-schema.org/draft/2020-12/schema")
        .put("title", "AccessLogPolicy")
        .put("description", "One more access log the edge writes for every request of every HTTP connection "
            + "manager, beside the bootstrap's access_log entries (never instead of them). format and json are "
            + "exclusive; every filter set must pass. Unknown fields are ignored.")
        .put("type", "object")
        .put("additionalProperties", true);
    ObjectNode properties = root.putObject("properties");
    properties.set("format", format(AccessLogField.FORMAT));
    AccessLogField jsonField = AccessLogField.JSON;
    ObjectNode json = properties.putObject("json").put("type", "object")
        .put("minProperties", 1).put("maxProperties", AccessLogFormat.MAX_JSON_KEYS);
    json.putObject("propertyNames").put("minLength", 1).put("maxLength", AccessLogFormat.MAX_JSON_KEY_LENGTH);
    json.set("additionalProperties", JSON.objectNode().put("type", "string").put("minLength", 1)
        .put("maxLength", AccessLogFormat.MAX_LENGTH));
    json.put("title", jsonField.label()).put("description", jsonField.hint());
    ObjectNode filters = properties.putObject("filters").put("type", "object").put("additionalProperties", true)
        .put("description", "Which requests are logged; every filter set must pass (Envoy's and_filter).");
    ObjectNode filterProperties = filters.putObject("properties");
    filterProperties.set("statusCode", comparison(AccessLogField.STATUS_CODE_OP, AccessLogField.STATUS_CODE_VALUE));
    filterProperties.set("duration", comparison(AccessLogField.DURATION_OP, AccessLogField.DURATION_MILLIS));
    AccessLogField health = AccessLogField.NOT_HEALTH_CHECK;
    filterProperties.putObject("notHealthCheck").put("type", "boolean").put("default", false)
        .put("title", health.label()).put("description", health.hint());
    AccessLogField flagsField = AccessLogField.RESPONSE_FLAGS;
    ObjectNode flags = filterProperties.putObject("responseFlags").put("type", "array")
        .put("maxItems", flagsField.max().intValue());
    ArrayNode values = flags.putObject("items").put("type", "string").putArray("enum");
    AccessLogFormat.RESPONSE_FLAGS.forEach(values::add);
    flags.put("title", flagsField.label()).put("description", flagsField.hint());
    AccessLogField destinationField = AccessLogField.DESTINATION;
    ObjectNode destination = properties.putObject("destination");
    ArrayNode oneOf = destination.putArray("oneOf");
    oneOf.addObject().put("type", "string").putArray("enum").add("stdout").add("stderr");
    ObjectNode file = oneOf.addObject().put("type", "object").put("additionalProperties", true);
    file.putArray("required").add("file");
    file.putObject("properties").putObject("file").put("type", "string").put("minLength", 1)
        .put("maxLength", AccessLogFormat.MAX_PATH_LENGTH)
        .put("pattern", "^(?!.*(^|/)\\.\\.?(/|$))[A-Za-z0-9._-]+(/[A-Za-z0-9._-]+)*$");
    destination.put("default", "stdout").put("title", destinationField.label())
        .put("description", destinationField.hint());
    return root;
  }

  private static ObjectNode format(AccessLogField field) {
    return JSON.objectNode().put("type", "string").put("minLength", 1).put("maxLength", AccessLogFormat.MAX_LENGTH)
        .put("title", field.label()).put("description", field.hint());
  }

  private static ObjectNode comparison(AccessLogField op, AccessLogField value) {
    ObjectNode node = JSON.objectNode().put("type", "object").put("additionalProperties", true);
    node.putArray("required").add(value.member());
    ObjectNode properties = node.putObject("properties");
    ObjectNode opNode = properties.putObject("op").put("type", "string");
    ArrayNode ops = opNode.putArray("enum");
    AccessLogField.OPS.forEach(ops::add);
    opNode.put("default", ">=").put("title", op.label()).put("description", op.hint());
    properties.putObject(value.member()).put("type", "integer").put("minimum", value.min().intValue())
        .put("maximum", value.max().intValue()).put("title", value.label()).put("description", value.hint());
    return node;
  }

  private static JsonNode value(Object value) {
    return switch (value) {
      case null -> JSON.nullNode();
      case Integer i -> JSON.numberNode(i);
      case Boolean b -> JSON.booleanNode(b);
      case String s -> JSON.textNode(s);
      default -> throw new IllegalArgumentException("unexpected value " + value);
    };
  }
}
