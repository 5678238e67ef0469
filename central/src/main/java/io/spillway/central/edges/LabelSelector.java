package io.spillway.central.edges;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Objects;

/**
 * A Kubernetes-style equality selector over edge labels: comma-separated requirements, all of
 * which must hold — {@code key=value} (also {@code ==}), {@code key!=value}, {@code key} (present)
 * and {@code !key} (absent). The empty selector matches every edge.
 *
 * @param requirements the parsed requirements
 */
public record LabelSelector(List<Requirement> requirements) {

  /** Copies the list. */
  public LabelSelector {
    requirements = List.copyOf(requirements);
  }

  /**
   * One requirement.
   *
   * @param key the label key
   * @param operator how the label is compared
   * @param value the value for {@code =} and {@code !=}, else null
   */
  public record Requirement(String key, Operator operator, String value) {

    /** Checks the key. */
    public Requirement {
      Objects.requireNonNull(key, "key");
      Objects.requireNonNull(operator, "operator");
    }

    boolean matches(Map<String, String> labels) {
      String actual = labels.get(key);
      return switch (operator) {
        case EQUALS -> value.equals(actual);
        case NOT_EQUALS -> !value.equals(actual);
        case EXISTS -> actual != null;
        case NOT_EXISTS -> actual == null;
      };
    }
  }

  /** How a requirement compares. */
  public enum Operator { EQUALS, NOT_EQUALS, EXISTS, NOT_EXISTS }

  /**
   * Parses a selector.
   *
   * @throws IllegalArgumentException naming the bad requirement
   */
  public static LabelSelector parse(String text) {
    List<Requirement> requirements = new ArrayList<>();
    if (text == null || text.isBlank()) {
      return new LabelSelector(requirements);
    }
    for (String raw : text.split(",", -1)) {
      String part = raw.trim();
      Requirement requirement;
      int notEquals = part.indexOf("!=");
      int equals = part.indexOf('=');
      if (notEquals > 0) {
        requirement = new Requirement(part.substring(0, notEquals).trim(), Operator.NOT_EQUALS, part.substring(notEquals + 2).trim());
      } else if (equals > 0) {
        int valueStart = part.startsWith("==", equals) ? equals + 2 : equals + 1;
        requirement = new Requirement(part.substring(0, equals).trim(), Operator.EQUALS, part.substring(valueStart).trim());
      } else if (part.startsWith("!") && part.length() > 1 && equals < 0) {
        requirement = new Requirement(part.substring(1).trim(), Operator.NOT_EXISTS, null);
      } else if (!part.isEmpty() && equals < 0) {
        requirement = new Requirement(part, Operator.EXISTS, null);
      } else {
        throw new IllegalArgumentException("bad selector requirement '" + part + "': use key=value, key!=value, key or !key");
      }
      if (!Labels.validKey(requirement.key())) {
        throw new IllegalArgumentException("bad label key '" + requirement.key() + "' in selector");
      }
      requirements.add(requirement);
    }
    return new LabelSelector(requirements);
  }

  /** Whether every requirement holds for the labels. */
  public boolean matches(Map<String, String> labels) {
    return requirements.stream().allMatch(r -> r.matches(labels));
  }
}
