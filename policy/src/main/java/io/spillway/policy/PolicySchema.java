package io.spillway.policy;

import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * Machine-readable descriptions of the policy, generated from the {@link PolicyField} table and
 * the {@link CrossFieldRule}s that validation also uses, so neither can drift from the validator:
 *
 * <ul>
 *   <li>{@link #describe()} — for the console's editor: every field's path, type, default, range,
 *       allowed values, environment variable, section, "Advanced" placement, hint and the exact
 *       messages central gives; the label and hint of each object that holds fields (the two
 *       sections and the groups inside them); the cross-field rules with message templates; and
 *       the clamp of the starting limit. Central serves it at {@code /schemas/overload-policy.json}.
 *   <li>{@link #jsonSchema()} — the {@code OverloadPolicy} schema for central's OpenAPI 3.1 file
 *       (JSON Schema draft 2020-12).
 * </ul>
 *
 * Each call builds a new tree, which the caller may change freely.
 */
public final class PolicySchema {

  private static final JsonNodeFactory JSON = JsonNodeFactory.instance;

  /** Label and hint of an object that holds fields. */
  private record ObjectDoc(String label, String hint) {}

  /** The objects that hold fields, by path. */
  private static final Map<String, ObjectDoc> OBJECTS = Map.of(
      "inbound", new ObjectDoc("Inbound admission",
          "Limits requests in flight on this edge; above the limit a request gets 503 with Retry-After. "
              + "Keep shadow for a day with a peak and watch http_admission_refused_total{mode=\"shadow\"} before enforce."),
      "inbound.adaptive", new ObjectDoc("Learned limit",
          "The edge learns its limit from call times and executor lag, between the minimum and maximum limit."),
      "outbound", new ObjectDoc("Outbound calls",
          "Guards calls to auth and to your backends, per peer: calls in flight, a bounded queue, timeouts, "
              + "circuit breaker and retry budget. Enable one step after inbound, the breaker last."),
      "outbound.breaker", new ObjectDoc("Circuit breaker",
          "Opens when too large a share of calls to a peer fails, refuses at once while open, then probes."),
      "outbound.retryBudget", new ObjectDoc("Retry budget",
          "How many retries the edge may spend on a peer."));

  private PolicySchema() {}

  /** The description the console renders the editor from and validates with, as you type. */
  public static ObjectNode describe() {
    ObjectNode root = JSON.objectNode();
    ArrayNode sections = root.putArray("sections");
    for (String section : List.of("inbound", "outbound")) {
      sections.addObject().put("name", section).put("label", OBJECTS.get(section).label()).put("hint", OBJECTS.get(section).hint());
    }
    ArrayNode groups = root.putArray("groups");
    Set<String> grouped = new LinkedHashSet<>();
    for (PolicyField field : PolicyField.values()) {
      grouped.add(field.parentPath());
    }
    for (String group : grouped) {
      groups.addObject().put("path", group).put("label", OBJECTS.get(group).label()).put("hint", OBJECTS.get(group).hint());
    }
    ArrayNode fields = root.putArray("fields");
    for (PolicyField field : PolicyField.values()) {
      fields.add(describe(field));
    }
    ArrayNode rules = root.putArray("rules");
    for (CrossFieldRule rule : CrossFieldRule.values()) {
      rules.addObject()
          .put("id", rule.id())
          .put("lesser", rule.lesser().path())
          .put("greater", rule.greater().path())
          .put("checkedOn", "effective")
          .put("message", rule.messageTemplate())
          .put("description", rule.description());
    }
    root.putArray("clamps").addObject()
        .put("field", PolicyField.INBOUND_MAX_IN_FLIGHT.path())
        .put("min", PolicyField.ADAPTIVE_MIN_LIMIT.path())
        .put("max", PolicyField.ADAPTIVE_MAX_LIMIT.path())
        .put("description", "A starting limit outside [minLimit, maxLimit] is not an error: it starts from the nearest bound.");
    return root;
  }

  /** {@link #describe()} as JSON text. */
  public static String describeAsString() {
    return describe().toString();
  }

  private static ObjectNode describe(PolicyField field) {
    ObjectNode node = JSON.objectNode()
        .put("path", field.path())
        .put("section", field.section())
        .put("key", field.key())
        .put("label", field.label())
        .put("type", field.type().schemaName());
    node.set("default", SchemaValues.json(field.defaultValue()));
    node.set("min", SchemaValues.json(field.min()));
    node.set("max", SchemaValues.json(field.max()));
    if (field.type() == FieldType.ENUM) {
      ArrayNode allowed = node.putArray("allowedValues");
      field.allowedValues().forEach(allowed::add);
    } else {
      node.putNull("allowedValues");
    }
    node.put("env", field.envVariable());
    node.put("advanced", field.advanced());
    node.put("hint", field.hint());
    node.putObject("messages").put("type", field.typeMessage()).put("range", field.rangeMessage());
    return node;
  }

  /**
   * The JSON Schema of {@code OverloadPolicy} (draft 2020-12, usable as an OpenAPI 3.1 component):
   * every field optional, {@code additionalProperties: true} at every level because unknown fields
   * are ignored. Cross-field rules, which JSON Schema cannot state, are in the description.
   */
  public static ObjectNode jsonSchema() {
    ObjectNode root = JSON.objectNode()
        .put("$schema", "https://json-schema.org/draft/2020-12/schema")
        .put("title", "OverloadPolicy")
        .put("description", "Overload protection of one edge. Every field is optional: an absent field takes the "
            + "deployment's value (its HTTP_ADMISSION_* / HTTP_CLIENT_GUARD_* environment variable if set, else the "
            + "built-in default), and a set field does not pin the others. Unknown fields are ignored. Rules between "
            + "fields, checked on effective values: " + rules()
            + ". inbound.maxInFlight outside [inbound.adaptive.minLimit, inbound.adaptive.maxLimit] is clamped into it.")
        .put("type", "object")
        .put("additionalProperties", true);
    root.putObject("properties");
    for (PolicyField field : PolicyField.values()) {
      ObjectNode parent = root;
      String at = "";
      for (String segment : field.parentPath().split("\\.")) {
        at = at.isEmpty() ? segment : at + "." + segment;
        ObjectNode properties = (ObjectNode) parent.get("properties");
        ObjectNode child = (ObjectNode) properties.get(segment);
        if (child == null) {
          child = properties.putObject(segment)
              .put("type", "object")
              .put("title", OBJECTS.get(at).label())
              .put("description", OBJECTS.get(at).hint())
              .put("additionalProperties", true);
          child.putObject("properties");
        }
        parent = child;
      }
      ((ObjectNode) parent.get("properties")).set(field.key(), jsonSchema(field));
    }
    return root;
  }

  /** {@link #jsonSchema()} as JSON text. */
  public static String jsonSchemaAsString() {
    return jsonSchema().toString();
  }

  private static ObjectNode jsonSchema(PolicyField field) {
    ObjectNode node = JSON.objectNode().put("type", field.type().jsonSchemaType());
    if (field.type() == FieldType.ENUM) {
      ArrayNode allowed = node.putArray("enum");
      field.allowedValues().forEach(allowed::add);
    }
    if (field.type().isNumeric()) {
      node.set("minimum", SchemaValues.json(field.min()));
      node.set("maximum", SchemaValues.json(field.max()));
    }
    node.set("default", SchemaValues.json(field.defaultValue()));
    node.put("title", field.label());
    String fallback = field.envVariable() != null
        ? " Absent: " + field.envVariable() + " if set, else " + ValueText.format(field.defaultValue()) + "."
        : " Absent: " + ValueText.format(field.defaultValue()) + ".";
    node.put("description", field.hint() + fallback);
    return node;
  }

  private static String rules() {
    StringBuilder text = new StringBuilder();
    for (CrossFieldRule rule : CrossFieldRule.values()) {
      text.append(text.isEmpty() ? "" : "; ").append(rule.lesser().path()).append(" <= ").append(rule.greater().path());
    }
    return text.toString();
  }
}
