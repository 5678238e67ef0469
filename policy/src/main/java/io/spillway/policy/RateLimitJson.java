package io.spillway.policy;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.json.JsonMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.io.UncheckedIOException;
import java.util.ArrayList;
import java.util.EnumMap;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.regex.Pattern;

/**
 * The JSON form of the {@code rateLimits} section, read and checked along the
 * {@link RateLimitField} table with the same rules as the overload section ({@link PolicyJson}):
 * unknown keys ignored at every level, {@code null} the same as absent, and every value of the
 * wrong type, out of range or breaking a rule a {@link Problem} naming its path
 * ({@code rateLimits.limits[1].rate}) — never an exception. Problems come limit by limit, each in
 * table order; then the duplicate names.
 */
public final class RateLimitJson {

  private static final ObjectMapper WRITER = JsonMapper.builder().build();
  private static final Pattern NAME = Pattern.compile(RateLimitField.NAME.pattern());

  /**
   * What {@link #parse} made of a section.
   *
   * @param policy the limits that could be read; use it only when {@link #valid()}
   * @param problems the problems in order, empty when valid
   */
  public record Result(RateLimitsPolicy policy, List<Problem> problems) {

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

  private RateLimitJson() {}

  /** Reads and checks the value of {@code rateLimits} (not {@code null}: that deletes the section). */
  public static Result parse(JsonNode node) {
    String section = RateLimitsPolicy.SECTION;
    if (node == null || !node.isObject()) {
      return new Result(RateLimitsPolicy.EMPTY, List.of(new Problem(section, section + " must be an object")));
    }
    JsonNode list = node.get("limits");
    String listPath = section + ".limits";
    if (list == null || list.isNull()) {
      return new Result(RateLimitsPolicy.EMPTY, List.of());
    }
    if (!list.isArray()) {
      return new Result(RateLimitsPolicy.EMPTY, List.of(new Problem(listPath, listPath + " must be a list of limits")));
    }
    if (list.size() > RateLimitField.MAX_LIMITS) {
      return new Result(RateLimitsPolicy.EMPTY,
          List.of(new Problem(listPath, listPath + " must hold at most " + RateLimitField.MAX_LIMITS + " limits")));
    }
    List<Problem> problems = new ArrayList<>();
    List<RateLimit> limits = new ArrayList<>();
    Map<String, Integer> names = new HashMap<>();
    for (int i = 0; i < list.size(); i++) {
      JsonNode limit = list.get(i);
      if (!limit.isObject()) {
        String at = RateLimitsPolicy.limitPath(i);
        problems.add(new Problem(at, at + " must be an object"));
        continue;
      }
      RateLimit read = readLimit(limit, i, problems);
      limits.add(read);
      if (read.name() != null && NAME.matcher(read.name()).matches()) {
        Integer first = names.putIfAbsent(read.name(), i);
        if (first != null) {
          RateLimitField.At at = RateLimitField.NAME.at(i);
          problems.add(new Problem(at.path(), at.duplicateMessage(read.name(), RateLimitField.NAME.at(first))));
        }
      }
    }
    return new Result(new RateLimitsPolicy(limits), problems);
  }

  private static RateLimit readLimit(JsonNode node, int index, List<Problem> problems) {
    Map<RateLimitField, Object> values = new EnumMap<>(RateLimitField.class);
    for (RateLimitField field : RateLimitField.values()) {
      RateLimitField.At at = field.at(index);
      JsonNode leaf = node.get(field.key());
      if (leaf == null || leaf.isNull()) {
        if (field.required()) {
          problems.add(new Problem(at.path(), at.requiredMessage()));
        }
        continue;
      }
      ValueReader.Read read = ValueReader.fromJson(at, leaf);
      if (read.problem() != null) {
        problems.add(new Problem(at.path(), read.problem()));
        continue;
      }
      String problem = check(at, read.value(), values);
      if (problem != null) {
        problems.add(new Problem(at.path(), problem));
      }
      values.put(field, read.value());
    }
    @SuppressWarnings("unchecked")
    List<String> exempt = (List<String>) values.get(RateLimitField.EXEMPT);
    Number rate = (Number) values.get(RateLimitField.RATE);
    return new RateLimit((String) values.get(RateLimitField.NAME), (String) values.get(RateLimitField.KEY),
        rate == null ? null : rate.doubleValue(), (Integer) values.get(RateLimitField.BURST),
        (Mode) values.get(RateLimitField.MODE), (Integer) values.get(RateLimitField.RETRY_AFTER_SECONDS), exempt,
        (Integer) values.get(RateLimitField.MAX_KEYS), (RateLimitScope) values.get(RateLimitField.SCOPE));
  }

  /** The problem with a well-typed value, or null; {@code earlier} holds the fields before it in the table. */
  private static String check(RateLimitField.At at, Object value, Map<RateLimitField, Object> earlier) {
    RateLimitField field = at.field();
    return switch (field.type()) {
      case INTEGER -> (Integer) value >= field.min().intValue() && (Integer) value <= field.max().intValue()
          ? null : at.rangeMessage();
      case NUMBER -> (Double) value >= field.min().doubleValue() && (Double) value <= field.max().doubleValue()
          ? null : at.rangeMessage();
      case STRING -> switch (field) {
        case NAME -> NAME.matcher((String) value).matches() ? null : at.patternMessage();
        case KEY -> RateLimitKey.parse((String) value) != null ? null : at.patternMessage();
        default -> null;
      };
      case STRING_LIST -> exempt(at, (List<?>) value, RateLimitKey.parse((String) earlier.get(RateLimitField.KEY)));
      case ENUM, BOOLEAN -> null;
    };
  }

  private static String exempt(RateLimitField.At at, List<?> values, RateLimitKey key) {
    if (values.size() > at.field().max().intValue()) {
      return at.rangeMessage();
    }
    for (int i = 0; i < values.size(); i++) {
      String value = (String) values.get(i);
      if (value.isEmpty() || value.length() > RateLimitField.MAX_EXEMPT_LENGTH) {
        return at.entryLengthMessage(i);
      }
      if (key != null && key.kind() == RateLimitKey.Kind.CLIENT_ADDRESS && IpPrefix.parse(value) == null) {
        return at.entryAddressMessage(i);
      }
      if (key != null && key.kind() == RateLimitKey.Kind.TIER && !RateLimitKey.TIERS.contains(value)) {
        return at.entryTierMessage(i);
      }
    }
    return null;
  }

  /**
   * The section as a JSON tree, absent fields left out. A whole-number rate is written as an
   * integer ({@code 5}, not {@code 5.0}), so the tree equals itself read back from text and an
   * unchanged section compares equal to the stored one.
   */
  public static ObjectNode toTree(RateLimitsPolicy policy) {
    ObjectNode tree = WRITER.valueToTree(Objects.requireNonNull(policy, "policy"));
    for (JsonNode limit : tree.path("limits")) {
      JsonNode rate = limit.get(RateLimitField.RATE.key());
      if (rate != null && rate.isFloatingPointNumber() && rate.doubleValue() == Math.rint(rate.doubleValue())
          && Math.abs(rate.doubleValue()) <= Integer.MAX_VALUE) {
        ((ObjectNode) limit).put(RateLimitField.RATE.key(), (int) rate.doubleValue());
      }
    }
    return tree;
  }

  /** The section as compact JSON text, as {@link #toTree} gives it. */
  public static String write(RateLimitsPolicy policy) {
    try {
      return WRITER.writeValueAsString(toTree(policy));
    } catch (JsonProcessingException e) {
      throw new UncheckedIOException(e);
    }
  }
}
