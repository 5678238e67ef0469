package io.spillway.policy;

import java.util.ArrayList;
import java.util.EnumSet;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Set;

/**
 * Checks a policy against the ranges of the {@link PolicyField} table (inclusive bounds) and the
 * {@link CrossFieldRule}s. Problems come in table order, one per broken rule, then the cross-field
 * problems; the first is the one central logs when it answers 400.
 *
 * <p>Cross-field rules are checked on effective values: a field the policy leaves out takes the
 * deployment's value. A rule is skipped when one of its two fields already has a problem of its
 * own, so one bad value gives one problem. The starting limit outside [minLimit, maxLimit] is not
 * a problem: it is clamped ({@link EffectivePolicy.Inbound#startingLimit()}).
 */
public final class PolicyValidator {

  private PolicyValidator() {}

  /** Validates against the built-in defaults (an edge with no overload environment variables). */
  public static List<Problem> validate(OverloadPolicy policy) {
    return validate(policy, DeploymentDefaults.builtIn());
  }

  /**
   * Validates against a deployment's baseline, which absent fields take when a cross-field rule is
   * checked.
   *
   * @param policy the policy, or null for none (always valid)
   * @return the problems in order, empty when the policy is valid
   */
  public static List<Problem> validate(OverloadPolicy policy, DeploymentDefaults defaults) {
    return validate(policy, defaults, Map.of(), Set.of());
  }

  /** Validates, putting the problems met while reading JSON in their fields' places. */
  static List<Problem> validate(OverloadPolicy policy, DeploymentDefaults defaults,
      Map<PolicyField, Problem> readProblems, Set<PolicyField> unreadable) {
    Objects.requireNonNull(defaults, "defaults");
    List<Problem> problems = new ArrayList<>();
    Set<PolicyField> failed = EnumSet.noneOf(PolicyField.class);
    failed.addAll(unreadable);
    for (PolicyField field : PolicyField.values()) {
      Problem readProblem = readProblems.get(field);
      if (readProblem != null) {
        problems.add(readProblem);
      }
      Object value = field.read(policy);
      if (value != null && !field.accepts(value)) {
        problems.add(new Problem(field.path(), field.type().isNumeric() ? field.rangeMessage() : field.typeMessage()));
        failed.add(field);
      }
    }
    for (CrossFieldRule rule : CrossFieldRule.values()) {
      if (failed.contains(rule.lesser()) || failed.contains(rule.greater())) {
        continue;
      }
      Number lesser = effective(rule.lesser(), policy, defaults);
      Number greater = effective(rule.greater(), policy, defaults);
      if (!rule.holds(lesser, greater)) {
        PolicyField at = rule.lesser().read(policy) != null ? rule.lesser() : rule.greater();
        problems.add(new Problem(at.path(), rule.message(lesser, greater)));
      }
    }
    return List.copyOf(problems);
  }

  private static Number effective(PolicyField field, OverloadPolicy policy, DeploymentDefaults defaults) {
    Object value = field.read(policy);
    return (Number) (value != null ? value : defaults.fallback(field).value());
  }
}
