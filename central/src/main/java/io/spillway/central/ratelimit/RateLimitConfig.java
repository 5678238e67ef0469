package io.spillway.central.ratelimit;

import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.dataformat.yaml.YAMLMapper;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Collection;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * The rate limit service's limits, in the configuration format of Lyft's ratelimit service
 * (github.com/envoyproxy/ratelimit): one file per {@code domain}, a tree of {@code descriptors},
 * each with a {@code key}, an optional {@code value}, an optional {@code rate_limit} ({@code unit}
 * second, minute, hour or day and {@code requests_per_unit}, or {@code unlimited: true}), an
 * optional {@code shadow_mode} and nested {@code descriptors}.
 *
 * <pre>
 * domain: api
 * descriptors:
 *   - key: api_key            # every API key: 100 per minute each
 *     rate_limit: {unit: minute, requests_per_unit: 100}
 *   - key: api_key
 *     value: partner          # this one: 1000 per minute
 *     rate_limit: {unit: minute, requests_per_unit: 1000}
 * </pre>
 *
 * <p>Matching is Lyft's: the request descriptor's entries walk the tree one level per entry, at each
 * level {@code key_value} first, then {@code key} alone; the limit of the node the last entry
 * reaches applies. A file is refused, with the file and the field path, when it has a field this
 * service does not implement (Lyft's {@code detailed_metric}, {@code name}, {@code replaces},
 * {@code quota_mode}, wildcard values, the week/month/year units) — a limit that would count
 * differently from what its author wrote is never loaded.
 */
public final class RateLimitConfig {

  /** A fixed window: its length in seconds, and the unit as the RLS API names it. */
  public enum Unit {
    SECOND(1),
    MINUTE(60),
    HOUR(3600),
    DAY(86400);

    final long seconds;

    Unit(long seconds) {
      this.seconds = seconds;
    }

    /** The unit for {@code name} (lower case, as the file writes it), or null. */
    static Unit named(String name) {
      for (Unit unit : values()) {
        if (unit.name().toLowerCase(java.util.Locale.ROOT).equals(name)) {
          return unit;
        }
      }
      return null;
    }
  }

  /**
   * One limit.
   *
   * @param unit the window, null when unlimited
   * @param requestsPerUnit how many hits a window admits
   * @param unlimited never counted, always OK
   * @param shadowMode counted, but over the limit still answers OK
   */
  public record Limit(Unit unit, long requestsPerUnit, boolean unlimited, boolean shadowMode) {}

  /** One node of a domain's descriptor tree. */
  record Node(Limit limit, Map<String, Node> children) {}

  private static final YAMLMapper YAML = (YAMLMapper) new YAMLMapper().enable(JsonParser.Feature.STRICT_DUPLICATE_DETECTION);
  private static final Set<String> TOP_FIELDS = Set.of("domain", "descriptors");
  private static final Set<String> DESCRIPTOR_FIELDS = Set.of("key", "value", "rate_limit", "descriptors", "shadow_mode",
      "detailed_metric");
  private static final Set<String> LIMIT_FIELDS = Set.of("unit", "requests_per_unit", "unlimited");
  private static final Set<String> NOT_IMPLEMENTED = Set.of("name", "replaces", "quota_mode", "value_to_metric",
      "share_threshold");
  private static final int MAX_DEPTH = 16;
  /** Between a key and its value in a level's index: no key or value can contain it, so none collide. */
  private static final char SEPARATOR = '\0';

  private final Map<String, Map<String, Node>> domains;

  private RateLimitConfig(Map<String, Map<String, Node>> domains) {
    this.domains = domains;
  }

  /** No domain: every descriptor is OK. */
  public static final RateLimitConfig EMPTY = new RateLimitConfig(Map.of());

  /**
   * Reads the files, one domain each.
   *
   * @throws IllegalArgumentException naming the file and the field path of the first problem
   */
  public static RateLimitConfig load(Collection<Path> files) {
    Map<String, Map<String, Node>> domains = new LinkedHashMap<>();
    Map<String, Path> from = new LinkedHashMap<>();
    for (Path file : files) {
      String text;
      try {
        text = Files.readString(file);
      } catch (IOException e) {
        throw new IllegalArgumentException("rate limit config " + file + ": cannot be read: " + e.getMessage(), e);
      }
      Domain domain = parse(text, file.toString());
      Path earlier = from.putIfAbsent(domain.name(), file);
      if (earlier != null) {
        throw new IllegalArgumentException("rate limit config " + file + ": domain: '" + domain.name()
            + "' is already configured by " + earlier);
      }
      domains.put(domain.name(), domain.descriptors());
    }
    return new RateLimitConfig(Map.copyOf(domains));
  }

  /** One parsed file. */
  record Domain(String name, Map<String, Node> descriptors) {}

  /**
   * Parses one file's text.
   *
   * @param source how errors name the file
   * @throws IllegalArgumentException naming the source and the field path of the first problem
   */
  static Domain parse(String text, String source) {
    JsonNode root;
    try {
      root = YAML.readTree(text);
    } catch (JsonProcessingException e) {
      throw new IllegalArgumentException("rate limit config " + source + ": not valid YAML: " + e.getOriginalMessage());
    }
    Problems problems = new Problems(source);
    if (root == null || root.isMissingNode() || !root.isObject()) {
      throw problems.at("", "must be a mapping with 'domain' and 'descriptors'");
    }
    unknownFields(root, TOP_FIELDS, "", problems);
    JsonNode domain = root.get("domain");
    if (domain == null || !domain.isTextual() || domain.asText().isEmpty()) {
      throw problems.at("domain", "is required, a non-empty string");
    }
    JsonNode descriptors = root.get("descriptors");
    Map<String, Node> tree = descriptors == null || descriptors.isNull() ? Map.of()
        : children(descriptors, "descriptors", 1, problems);
    return new Domain(domain.asText(), tree);
  }

  private static Map<String, Node> children(JsonNode list, String path, int depth, Problems problems) {
    if (!list.isArray()) {
      throw problems.at(path, "must be a list of descriptors");
    }
    if (depth > MAX_DEPTH) {
      throw problems.at(path, "nests deeper than " + MAX_DEPTH + " levels");
    }
    Map<String, Node> nodes = new LinkedHashMap<>();
    for (int i = 0; i < list.size(); i++) {
      String at = path + "[" + i + "]";
      JsonNode d = list.get(i);
      if (!d.isObject()) {
        throw problems.at(at, "must be a mapping with 'key'");
      }
      unknownFields(d, DESCRIPTOR_FIELDS, at + ".", problems);
      String key = text(d, "key", at, problems);
      if (key == null || key.isEmpty()) {
        throw problems.at(at + ".key", "is required, a non-empty string");
      }
      String value = text(d, "value", at, problems);
      if (value != null && value.endsWith("*")) {
        throw problems.at(at + ".value", "'" + value + "': wildcard values are not supported; list each value");
      }
      if (bool(d, "detailed_metric", at, problems)) {
        throw problems.at(at + ".detailed_metric", "is not supported (per-value metrics); remove it or set it false");
      }
      boolean shadow = bool(d, "shadow_mode", at, problems);
      Limit limit = limit(d.get("rate_limit"), at + ".rate_limit", shadow, problems);
      if (limit == null && shadow) {
        throw problems.at(at + ".shadow_mode", "needs a rate_limit on the same descriptor");
      }
      JsonNode nested = d.get("descriptors");
      Map<String, Node> below = nested == null || nested.isNull() ? Map.of()
          : children(nested, at + ".descriptors", depth + 1, problems);
      String composite = value == null || value.isEmpty() ? key : key + SEPARATOR + value;
      if (nodes.put(composite, new Node(limit, below)) != null) {
        throw problems.at(at, "duplicates the descriptor " + (value == null || value.isEmpty() ? "key '" + key + "'"
            : "key '" + key + "' value '" + value + "'") + " at this level");
      }
    }
    return Map.copyOf(nodes);
  }

  private static Limit limit(JsonNode node, String path, boolean shadow, Problems problems) {
    if (node == null || node.isNull()) {
      return null;
    }
    if (!node.isObject()) {
      throw problems.at(path, "must be a mapping with 'unit' and 'requests_per_unit', or 'unlimited: true'");
    }
    unknownFields(node, LIMIT_FIELDS, path + ".", problems);
    boolean unlimited = bool(node, "unlimited", path, problems);
    String unitName = text(node, "unit", path, problems);
    JsonNode perUnit = node.get("requests_per_unit");
    if (unlimited) {
      if (unitName != null || perUnit != null) {
        throw problems.at(path, "unlimited: true takes neither 'unit' nor 'requests_per_unit'");
      }
      return new Limit(null, 0, true, shadow);
    }
    if (unitName == null) {
      throw problems.at(path + ".unit", "is required: second, minute, hour or day");
    }
    Unit unit = Unit.named(unitName.toLowerCase(java.util.Locale.ROOT));
    if (unit == null) {
      throw problems.at(path + ".unit", "'" + unitName + "' is not supported: second, minute, hour or day");
    }
    if (perUnit == null || !perUnit.canConvertToLong() || !perUnit.isIntegralNumber() || perUnit.asLong() < 0
        || perUnit.asLong() > 0xFFFF_FFFFL) {
      throw problems.at(path + ".requests_per_unit", "is required, an integer from 0 to 4294967295");
    }
    return new Limit(unit, perUnit.asLong(), false, shadow);
  }

  private static void unknownFields(JsonNode node, Set<String> known, String prefix, Problems problems) {
    for (Iterator<String> names = node.fieldNames(); names.hasNext();) {
      String name = names.next();
      if (NOT_IMPLEMENTED.contains(name)) {
        throw problems.at(prefix + name, "is not supported by this rate limit service");
      }
      if (!known.contains(name)) {
        throw problems.at(prefix + name, "is not a field here (known: " + String.join(", ", new java.util.TreeSet<>(known)) + ")");
      }
    }
  }

  private static String text(JsonNode parent, String field, String at, Problems problems) {
    JsonNode node = parent.get(field);
    if (node == null || node.isNull()) {
      return null;
    }
    if (!node.isTextual() && !node.isNumber() && !node.isBoolean()) {
      throw problems.at(at + "." + field, "must be a string");
    }
    return node.asText();
  }

  private static boolean bool(JsonNode parent, String field, String at, Problems problems) {
    JsonNode node = parent.get(field);
    if (node == null || node.isNull()) {
      return false;
    }
    if (!node.isBoolean()) {
      throw problems.at(at + "." + field, "must be true or false");
    }
    return node.asBoolean();
  }

  /** Builds the error message: the file, the field path, the rule. */
  private record Problems(String source) {
    IllegalArgumentException at(String path, String rule) {
      return new IllegalArgumentException("rate limit config " + source + ": " + (path.isEmpty() ? "" : path + ": ") + rule);
    }
  }

  /** The configured domains. */
  public Set<String> domains() {
    return domains.keySet();
  }

  /**
   * The limit for a request descriptor, Lyft's way: each entry descends one level, {@code key_value}
   * before {@code key}; the node the last entry reaches gives the limit.
   *
   * @param entries the descriptor's entries as key, value pairs
   * @return the limit, or null when none applies (the descriptor is OK, uncounted)
   */
  public Limit find(String domain, List<Map.Entry<String, String>> entries) {
    Map<String, Node> level = domains.get(domain);
    if (level == null) {
      return null;
    }
    Limit found = null;
    for (int i = 0; i < entries.size(); i++) {
      Map.Entry<String, String> entry = entries.get(i);
      Node next = level.get(entry.getKey() + SEPARATOR + entry.getValue());
      if (next == null) {
        next = level.get(entry.getKey());
      }
      if (next == null) {
        return null;
      }
      if (next.limit() != null && i == entries.size() - 1) {
        found = next.limit();
      }
      if (next.children().isEmpty()) {
        break;
      }
      level = next.children();
    }
    return found;
  }
}
