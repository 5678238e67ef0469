package io.spillway.policy;

/**
 * A rule between two fields: {@code lesser} must not exceed {@code greater}. It is checked on the
 * effective values, so a field the policy leaves out takes the deployment's value (environment
 * variable, else built-in default) — {@code startShare: 0.9} alone breaks the rule against the
 * default continuation share 0.85.
 *
 * <p>The starting limit {@code inbound.maxInFlight} is deliberately not a rule: outside [minLimit,
 * maxLimit] it is clamped into it ({@link EffectivePolicy.Inbound#startingLimit()}).
 */
public enum CrossFieldRule {
  /** {@code inbound.startShare <= inbound.continuationShare}. */
  START_SHARE_WITHIN_CONTINUATION_SHARE(PolicyField.INBOUND_START_SHARE, PolicyField.INBOUND_CONTINUATION_SHARE),
  /** {@code inbound.adaptive.minLimit <= inbound.adaptive.maxLimit}. */
  MIN_LIMIT_WITHIN_MAX_LIMIT(PolicyField.ADAPTIVE_MIN_LIMIT, PolicyField.ADAPTIVE_MAX_LIMIT);

  private final PolicyField lesser;
  private final PolicyField greater;

  CrossFieldRule(PolicyField lesser, PolicyField greater) {
    this.lesser = lesser;
    this.greater = greater;
  }

  /** The field that must not be larger. */
  public PolicyField lesser() {
    return lesser;
  }

  /** The field that must not be smaller. */
  public PolicyField greater() {
    return greater;
  }

  /** A stable identifier for the schema, e.g. {@code startShareWithinContinuationShare}. */
  public String id() {
    return lesser.key() + "Within" + Character.toUpperCase(greater.key().charAt(0)) + greater.key().substring(1);
  }

  /** Whether the two effective values satisfy the rule. */
  public boolean holds(Number lesserValue, Number greaterValue) {
    return lesserValue.doubleValue() <= greaterValue.doubleValue();
  }

  /**
   * The message for two values that break the rule, e.g. "inbound.startShare (0.9) must not exceed
   * inbound.continuationShare (0.85)".
   */
  public String message(Number lesserValue, Number greaterValue) {
    return messageTemplate()
        .replace("{" + lesser.path() + "}", ValueText.format(lesserValue))
        .replace("{" + greater.path() + "}", ValueText.format(greaterValue));
  }

  /**
   * The message with placeholders named after the fields' paths, for the console: {@code
   * inbound.startShare ({inbound.startShare}) must not exceed inbound.continuationShare
   * ({inbound.continuationShare})}.
   */
  public String messageTemplate() {
    return lesser.path() + " ({" + lesser.path() + "}) must not exceed " + greater.path() + " ({" + greater.path() + "})";
  }

  /** One line for people: which field bounds which, on effective values. */
  public String description() {
    return lesser.path() + " must be at most " + greater.path()
        + "; a field the policy leaves out takes the deployment's value when this is checked";
  }
}
