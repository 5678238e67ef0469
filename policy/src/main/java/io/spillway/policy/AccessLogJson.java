package io.spillway.policy;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.json.JsonMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.io.UncheckedIOException;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;

/**
 * The JSON form of the {@code accessLog} section, read and checked along the {@link AccessLogField}
 * table with the rules of the other sections ({@link PolicyJson}, {@link RateLimitJson}): unknown
 * keys ignored at every level, {@code null} the same as absent, and every value of the wrong type,
 * out of range or breaking a rule a {@link Problem} naming its path
 * ({@code accessLog.filters.statusCode.value}) — never an exception. Problems come in table order.
 */
public final class AccessLogJson {

  private static final ObjectMapper WRITER = JsonMapper.builder().build();
  private static final JsonNodeFactory JSON = JsonNodeFactory.instance;

  /**
   * What {@link #parse} made of a section.
   *
   * @param policy what could be read; use it only when {@link #valid()}
   * @param problems the problems in order, empty when valid
   */
  public record Result(AccessLogPolicy policy, List<Problem> problems) {

    /** Copies the list. */
    public Result {
      Objects.requireNonNull(policy, "policy");
      problems = List.copyOf(problems);
    }

    /** Whether the section may be stored and applied. */
    public boolean valid() {
      return problems.isEmpty();
    }

    /** The problem central logs when it refuses the section with 400. */
    public Optional<Problem> firstProblem() {
      return problems.stream().findFirst();
    }
  }

  private AccessLogJson() {}

  /** Reads and checks the value of {@code accessLog} (not {@code null}: that deletes the section). */
  public static Result parse(JsonNode node) {
    String section = AccessLogPolicy.SECTION;
    AccessLogPolicy empty = new AccessLogPolicy(null, null, null, null);
    if (node == null || !node.isObject()) {
      return new Result(empty, List.of(new Problem(section, section + " must be an object")));
    }
    List<Problem> problems = new ArrayList<>();
    String format = format(AccessLogField.FORMAT, present(node, "format"), problems);
    Map<String, String> json = json(present(node, "json"), problems);
    if (format != null && json != null) {
      AccessLogField f = AccessLogField.JSON;
      problems.add(new Problem(f.path(), AccessLogField.formatAndJsonMessage()));
    }
    AccessLogPolicy.Filters filters = filters(present(node, "filters"), problems);
    AccessLogPolicy.Destination destination = destination(present(node, "destination"), problems);
    return new Result(new AccessLogPolicy(format, json, filters, destination), problems);
  }

  private static JsonNode present(JsonNode parent, String key) {
    JsonNode value = parent == null ? null : parent.get(key);
    return value == null || value.isNull() ? null : value;
  }

  private static void add(List<Problem> problems, AccessLogField field, String message) {
    problems.add(new Problem(field.path(), message));
  }

  private static String format(AccessLogField field, JsonNode node, List<Problem> problems) {
    if (node == null) {
      return null;
    }
    if (!node.isTextual()) {
      add(problems, field, field.typeMessage());
      return null;
    }
    String text = node.textValue();
    String problem = formatProblem(field.path(), text);
    if (problem != null) {
      add(problems, field, problem);
    }
    return text;
  }

  /** What is wrong with a format string at {@code path}, or null. */
  private static String formatProblem(String path, String text) {
    String problem = AccessLogFormat.problem(text);
    return problem == null ? null : path + " " + problem;
  }

  private static Map<String, String> json(JsonNode node, List<Problem> problems) {
    AccessLogField field = AccessLogField.JSON;
    if (node == null) {
      return null;
    }
    if (!node.isObject()) {
      add(problems, field, field.typeMessage());
      return null;
    }
    if (node.isEmpty() || node.size() > AccessLogFormat.MAX_JSON_KEYS) {
      add(problems, field, field.rangeMessage());
      return null;
    }
    Map<String, String> json = new LinkedHashMap<>();
    for (Iterator<Map.Entry<String, JsonNode>> it = node.fields(); it.hasNext(); ) {
      Map.Entry<String, JsonNode> e = it.next();
      String path = field.path() + "." + e.getKey();
      if (e.getKey().isEmpty() || e.getKey().length() > AccessLogFormat.MAX_JSON_KEY_LENGTH) {
        add(problems, field, AccessLogField.jsonKeyLengthMessage());
        continue;
      }
      if (!e.getValue().isTextual()) {
        add(problems, field, AccessLogField.jsonValueTypeMessage(e.getKey()));
        continue;
      }
      String problem = formatProblem(path, e.getValue().textValue());
      if (problem != null) {
        add(problems, field, problem);
      }
      json.put(e.getKey(), e.getValue().textValue());
    }
    return json;
  }

  private static AccessLogPolicy.Filters filters(JsonNode node, List<Problem> problems) {
    if (node == null) {
      return null;
    }
    String path = AccessLogPolicy.SECTION + ".filters";
    if (!node.isObject()) {
      problems.add(new Problem(path, path + " must be an object"));
      return null;
    }
    AccessLogPolicy.Comparison status = comparison(present(node, "statusCode"), AccessLogField.STATUS_CODE_OP,
        AccessLogField.STATUS_CODE_VALUE, problems);
    AccessLogPolicy.Comparison duration = comparison(present(node, "duration"), AccessLogField.DURATION_OP,
        AccessLogField.DURATION_MILLIS, problems);
    Boolean notHealthCheck = null;
    JsonNode health = present(node, "notHealthCheck");
    if (health != null) {
      ValueReader.Read read = ValueReader.fromJson(AccessLogField.NOT_HEALTH_CHECK, health);
      if (read.problem() != null) {
        add(problems, AccessLogField.NOT_HEALTH_CHECK, read.problem());
      } else {
        notHealthCheck = (Boolean) read.value();
      }
    }
    List<String> flags = flags(present(node, "responseFlags"), problems);
    return new AccessLogPolicy.Filters(status, duration, notHealthCheck, flags);
  }

  private static AccessLogPolicy.Comparison comparison(JsonNode node, AccessLogField opField, AccessLogField valueField,
      List<Problem> problems) {
    if (node == null) {
      return null;
    }
    String path = opField.path().substring(0, opField.path().lastIndexOf('.'));
    if (!node.isObject()) {
      problems.add(new Problem(path, path + " must be an object with op and " + valueField.member()));
      return null;
    }
    String op = null;
    JsonNode opNode = present(node, "op");
    if (opNode != null) {
      if (opNode.isTextual() && AccessLogField.OPS.contains(opNode.textValue())) {
        op = opNode.textValue();
      } else {
        add(problems, opField, opField.typeMessage());
      }
    }
    Integer value = null;
    JsonNode valueNode = present(node, valueField.member());
    if (valueNode == null) {
      add(problems, valueField, valueField.requiredMessage());
    } else {
      ValueReader.Read read = ValueReader.fromJson(valueField, valueNode);
      if (read.problem() != null) {
        add(problems, valueField, read.problem());
      } else {
        value = (Integer) read.value();
        if (value < valueField.min().intValue() || value > valueField.max().intValue()) {
          add(problems, valueField, valueField.rangeMessage());
        }
      }
    }
    return new AccessLogPolicy.Comparison(op, value);
  }

  private static List<String> flags(JsonNode node, List<Problem> problems) {
    AccessLogField field = AccessLogField.RESPONSE_FLAGS;
    if (node == null) {
      return null;
    }
    ValueReader.Read read = ValueReader.fromJson(field, node);
    if (read.problem() != null) {
      add(problems, field, read.problem());
      return null;
    }
    @SuppressWarnings("unchecked")
    List<String> flags = (List<String>) read.value();
    if (flags.size() > field.max().intValue()) {
      add(problems, field, field.rangeMessage());
      return flags;
    }
    for (int i = 0; i < flags.size(); i++) {
      if (!AccessLogFormat.RESPONSE_FLAGS.contains(flags.get(i))) {
        add(problems, field, AccessLogField.unknownFlagMessage(Integer.toString(i), flags.get(i)));
        break;
      }
    }
    return flags;
  }

  private static AccessLogPolicy.Destination destination(JsonNode node, List<Problem> problems) {
    AccessLogField field = AccessLogField.DESTINATION;
    if (node == null) {
      return null;
    }
    if (node.isTextual() && node.textValue().equals("stdout")) {
      return AccessLogPolicy.Destination.STDOUT;
    }
    if (node.isTextual() && node.textValue().equals("stderr")) {
      return AccessLogPolicy.Destination.STDERR;
    }
    if (!node.isObject()) {
      add(problems, field, field.typeMessage());
      return null;
    }
    String path = field.path() + ".file";
    JsonNode file = present(node, "file");
    if (file == null) {
      add(problems, field, field.requiredMessage());
      return null;
    }
    if (!file.isTextual()) {
      add(problems, field, AccessLogField.fileTypeMessage());
      return null;
    }
    String problem = AccessLogFormat.pathProblem(file.textValue());
    if (problem != null) {
      add(problems, field, path + " " + problem);
    }
    return AccessLogPolicy.Destination.file(file.textValue());
  }

  /** The section as a JSON tree, absent fields left out, the JSON format's keys in order. */
  public static ObjectNode toTree(AccessLogPolicy policy) {
    Objects.requireNonNull(policy, "policy");
    ObjectNode root = JSON.objectNode();
    if (policy.format() != null) {
      root.put("format", policy.format());
    }
    if (policy.json() != null) {
      ObjectNode json = root.putObject("json");
      policy.json().forEach(json::put);
    }
    AccessLogPolicy.Filters f = policy.filters();
    if (f != null) {
      ObjectNode filters = root.putObject("filters");
      comparison(filters, "statusCode", "value", f.statusCode());
      comparison(filters, "duration", "millis", f.duration());
      if (f.notHealthCheck() != null) {
        filters.put("notHealthCheck", f.notHealthCheck());
      }
      if (f.responseFlags() != null) {
        ArrayNode flags = filters.putArray("responseFlags");
        f.responseFlags().forEach(flags::add);
      }
    }
    AccessLogPolicy.Destination d = policy.destination();
    if (d != null) {
      if (d.isFile()) {
        root.putObject("destination").put("file", d.file());
      } else {
        root.put("destination", d.stream());
      }
    }
    return root;
  }

  private static void comparison(ObjectNode filters, String key, String valueKey, AccessLogPolicy.Comparison c) {
    if (c == null) {
      return;
    }
    ObjectNode node = filters.putObject(key);
    if (c.op() != null) {
      node.put("op", c.op());
    }
    if (c.value() != null) {
      node.put(valueKey, c.value());
    }
  }

  /** The section as compact JSON text, as {@link #toTree} gives it. */
  public static String write(AccessLogPolicy policy) {
    try {
      return WRITER.writeValueAsString(toTree(policy));
    } catch (JsonProcessingException e) {
      throw new UncheckedIOException(e);
    }
  }
}
