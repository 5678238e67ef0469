package io.spillway.policy;

import java.util.ArrayList;
import java.util.Collections;
import java.util.EnumMap;
import java.util.EnumSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Set;

/**
 * An edge's deployment baseline: what each policy field falls back to when the policy leaves it
 * out — the {@code HTTP_ADMISSION_*} / {@code HTTP_CLIENT_GUARD_*} environment variable if the
 * deployment sets it, else the built-in default (SPEC §3.4). Immutable, and always valid: an
 * invalid variable is refused when the baseline is built.
 */
public final class DeploymentDefaults {

  private static final DeploymentDefaults BUILT_IN = new DeploymentDefaults(Map.of());

  private final Map<PolicyField, Object> environment;

  private DeploymentDefaults(Map<PolicyField, Object> environment) {
    Map<PolicyField, Object> copy = new EnumMap<>(PolicyField.class);
    copy.putAll(environment);
    this.environment = Collections.unmodifiableMap(copy);
  }

  /** A deployment that sets no variables: every fallback is the built-in default. */
  public static DeploymentDefaults builtIn() {
    return BUILT_IN;
  }

  /**
   * Reads the baseline from environment variables. Variables that are absent or blank are unset;
   * other names are ignored. Values are trimmed; modes and booleans ignore case ({@code ENFORCE});
   * numbers are decimal ({@code 0.85}, {@code 256}; an integer may be written {@code 256.0}).
   *
   * @param env the environment, e.g. {@link System#getenv()}
   * @throws InvalidDeploymentDefaultsException naming every variable that is not a value of its
   *     type, is out of range, or breaks a cross-field rule with the other values (an unset one
   *     taking its built-in default)
   */
  public static DeploymentDefaults fromEnvironment(Map<String, String> env) {
    Objects.requireNonNull(env, "env");
    Map<PolicyField, Object> values = new EnumMap<>(PolicyField.class);
    Map<PolicyField, String> texts = new EnumMap<>(PolicyField.class);
    Set<PolicyField> failed = EnumSet.noneOf(PolicyField.class);
    List<String> variables = new ArrayList<>();
    List<String> reasons = new ArrayList<>();
    for (PolicyField field : PolicyField.withEnvVariable()) {
      String raw = env.get(field.envVariable());
      if (raw == null || raw.isBlank()) {
        continue;
      }
      ValueReader.Read read = ValueReader.fromText(field, raw.trim());
      String problem = read.problem() != null ? read.problem()
          : field.accepts(read.value()) ? null : field.rangeMessage();
      if (problem != null) {
        failed.add(field);
        variables.add(field.envVariable());
        reasons.add(setting(field, raw) + ": " + problem);
      } else {
        values.put(field, read.value());
        texts.put(field, raw);
      }
    }
    for (CrossFieldRule rule : CrossFieldRule.values()) {
      checkRule(rule, values, texts, failed, variables, reasons);
    }
    if (!reasons.isEmpty()) {
      throw new InvalidDeploymentDefaultsException(variables, reasons);
    }
    return values.isEmpty() ? BUILT_IN : new DeploymentDefaults(values);
  }

  private static void checkRule(CrossFieldRule rule, Map<PolicyField, Object> values, Map<PolicyField, String> texts,
      Set<PolicyField> failed, List<String> variables, List<String> reasons) {
    PolicyField lesser = rule.lesser();
    PolicyField greater = rule.greater();
    boolean lesserSet = values.containsKey(lesser);
    boolean greaterSet = values.containsKey(greater);
    if (failed.contains(lesser) || failed.contains(greater) || (!lesserSet && !greaterSet)) {
      return;
    }
    Number lesserValue = (Number) values.getOrDefault(lesser, lesser.defaultValue());
    Number greaterValue = (Number) values.getOrDefault(greater, greater.defaultValue());
    if (rule.holds(lesserValue, greaterValue)) {
      return;
    }
    List<String> settings = new ArrayList<>();
    for (PolicyField field : List.of(lesser, greater)) {
      if (values.containsKey(field)) {
        settings.add(setting(field, texts.get(field)));
        variables.add(field.envVariable());
      }
    }
    String reason = String.join(" and ", settings) + ": " + rule.message(lesserValue, greaterValue);
    PolicyField unset = lesserSet ? (greaterSet ? null : greater) : lesser;
    if (unset != null) {
      reason += " (" + (unset.envVariable() != null ? unset.envVariable() + " is not set, so " : "")
          + unset.path() + " is its built-in default " + ValueText.format(unset.defaultValue()) + ")";
    }
    reasons.add(reason);
  }

  private static String setting(PolicyField field, String raw) {
    return field.envVariable() + "=\"" + raw + "\"";
  }

  /** The value a field falls back to when a policy leaves it out, and whether it comes from the environment. */
  public FieldValue fallback(PolicyField field) {
    Object value = environment.get(field);
    return value != null
        ? new FieldValue(field, value, Source.ENVIRONMENT)
        : new FieldValue(field, field.defaultValue(), Source.BUILT_IN);
  }

  /**
   * The variables this baseline was read from, in table order, each value written canonically
   * (lower-case mode, plain decimal); {@link #fromEnvironment} reads them back to an equal
   * baseline, so an edge can report them and central can rebuild them.
   */
  public Map<String, String> environmentVariables() {
    Map<String, String> out = new LinkedHashMap<>();
    environment.forEach((field, value) -> out.put(field.envVariable(), ValueText.format(value)));
    return Collections.unmodifiableMap(out);
  }

  @Override
  public boolean equals(Object o) {
    return o instanceof DeploymentDefaults other && environment.equals(other.environment);
  }

  @Override
  public int hashCode() {
    return environment.hashCode();
  }

  @Override
  public String toString() {
    return "DeploymentDefaults" + environmentVariables();
  }
}
