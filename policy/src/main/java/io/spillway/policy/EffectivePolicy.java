package io.spillway.policy;

import static io.spillway.policy.PolicyField.ADAPTIVE_LAG_TARGET_MILLIS;
import static io.spillway.policy.PolicyField.ADAPTIVE_MAX_LIMIT;
import static io.spillway.policy.PolicyField.ADAPTIVE_MIN_LIMIT;
import static io.spillway.policy.PolicyField.ADAPTIVE_SMOOTHING;
import static io.spillway.policy.PolicyField.ADAPTIVE_TOLERANCE;
import static io.spillway.policy.PolicyField.BREAKER_ENABLED;
import static io.spillway.policy.PolicyField.BREAKER_FAILURE_RATIO;
import static io.spillway.policy.PolicyField.BREAKER_MIN_CALLS;
import static io.spillway.policy.PolicyField.BREAKER_OPEN_SECONDS;
import static io.spillway.policy.PolicyField.BREAKER_PROBE_CALLS;
import static io.spillway.policy.PolicyField.BREAKER_WINDOW_SECONDS;
import static io.spillway.policy.PolicyField.INBOUND_CONTINUATION_SHARE;
import static io.spillway.policy.PolicyField.INBOUND_MAX_IN_FLIGHT;
import static io.spillway.policy.PolicyField.INBOUND_MODE;
import static io.spillway.policy.PolicyField.INBOUND_RETRY_AFTER_SECONDS;
import static io.spillway.policy.PolicyField.INBOUND_START_SHARE;
import static io.spillway.policy.PolicyField.OUTBOUND_MAX_CONCURRENT;
import static io.spillway.policy.PolicyField.OUTBOUND_MAX_QUEUE;
import static io.spillway.policy.PolicyField.OUTBOUND_MODE;
import static io.spillway.policy.PolicyField.OUTBOUND_QUEUE_TIMEOUT_MILLIS;
import static io.spillway.policy.PolicyField.OUTBOUND_REQUEST_TIMEOUT_MILLIS;
import static io.spillway.policy.PolicyField.RETRY_BUDGET_MIN_PER_SECOND;
import static io.spillway.policy.PolicyField.RETRY_BUDGET_RATIO;

import java.util.Collections;
import java.util.EnumMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;

/**
 * The overload protection an edge actually runs: every field filled in — from the policy if it
 * sets the field, else the deployment's environment variable, else the built-in default — and
 * where each value came from. A set field never pins the others. Immutable and valid by
 * construction through {@link #resolve}.
 *
 * @param inbound inbound admission
 * @param outbound the outbound guard
 * @param sources where each field's value came from; every field is present
 */
public record EffectivePolicy(Inbound inbound, Outbound outbound, Map<PolicyField, Source> sources) {

  /** Checks every part is present and copies the sources. */
  public EffectivePolicy {
    Objects.requireNonNull(inbound, "inbound");
    Objects.requireNonNull(outbound, "outbound");
    Map<PolicyField, Source> copy = new EnumMap<>(PolicyField.class);
    copy.putAll(sources);
    if (copy.size() != PolicyField.values().length || copy.containsValue(null)) {
      throw new IllegalArgumentException("sources must name a source for every field");
    }
    sources = Collections.unmodifiableMap(copy);
  }

  /**
   * Resolves a policy over a deployment's baseline.
   *
   * @param policyOrNull the policy from central, or null when there is none
   * @throws InvalidPolicyException when the policy fails {@link PolicyValidator#validate(OverloadPolicy,
   *     DeploymentDefaults)} against this baseline
   */
  public static EffectivePolicy resolve(OverloadPolicy policyOrNull, DeploymentDefaults defaults) {
    Objects.requireNonNull(defaults, "defaults");
    List<Problem> problems = PolicyValidator.validate(policyOrNull, defaults);
    if (!problems.isEmpty()) {
      throw new InvalidPolicyException(problems);
    }
    Map<PolicyField, Object> values = new EnumMap<>(PolicyField.class);
    Map<PolicyField, Source> sources = new EnumMap<>(PolicyField.class);
    for (PolicyField field : PolicyField.values()) {
      Object set = field.read(policyOrNull);
      FieldValue resolved = set != null ? new FieldValue(field, set, Source.POLICY) : defaults.fallback(field);
      values.put(field, resolved.value());
      sources.put(field, resolved.source());
    }
    return new EffectivePolicy(inbound(values), outbound(values), sources);
  }

  /** Where one field's value came from. */
  public Source source(PolicyField field) {
    return sources.get(field);
  }

  private static Inbound inbound(Map<PolicyField, Object> v) {
    Adaptive adaptive = new Adaptive((Integer) v.get(ADAPTIVE_MIN_LIMIT), (Integer) v.get(ADAPTIVE_MAX_LIMIT),
        (Double) v.get(ADAPTIVE_TOLERANCE), (Double) v.get(ADAPTIVE_SMOOTHING), (Integer) v.get(ADAPTIVE_LAG_TARGET_MILLIS));
    return new Inbound((Mode) v.get(INBOUND_MODE), (Integer) v.get(INBOUND_MAX_IN_FLIGHT),
        (Double) v.get(INBOUND_CONTINUATION_SHARE), (Double) v.get(INBOUND_START_SHARE),
        (Integer) v.get(INBOUND_RETRY_AFTER_SECONDS), adaptive);
  }

  private static Outbound outbound(Map<PolicyField, Object> v) {
    Breaker breaker = new Breaker((Boolean) v.get(BREAKER_ENABLED), (Double) v.get(BREAKER_FAILURE_RATIO),
        (Integer) v.get(BREAKER_MIN_CALLS), (Integer) v.get(BREAKER_WINDOW_SECONDS), (Integer) v.get(BREAKER_OPEN_SECONDS),
        (Integer) v.get(BREAKER_PROBE_CALLS));
    RetryBudget retryBudget = new RetryBudget((Double) v.get(RETRY_BUDGET_RATIO), (Integer) v.get(RETRY_BUDGET_MIN_PER_SECOND));
    return new Outbound((Mode) v.get(OUTBOUND_MODE), (Integer) v.get(OUTBOUND_MAX_CONCURRENT), (Integer) v.get(OUTBOUND_MAX_QUEUE),
        (Integer) v.get(OUTBOUND_QUEUE_TIMEOUT_MILLIS), (Integer) v.get(OUTBOUND_REQUEST_TIMEOUT_MILLIS), breaker, retryBudget);
  }

  /**
   * Inbound admission as it runs.
   *
   * @param mode off, shadow or enforce
   * @param maxInFlight the starting limit as configured; use {@link #startingLimit()}
   * @param continuationShare share of the limit for work already started
   * @param startShare share of the limit for new entries, at most continuationShare
   * @param retryAfterSeconds the {@code Retry-After} of a refusal
   * @param adaptive how the limit is learned
   */
  public record Inbound(Mode mode, int maxInFlight, double continuationShare, double startShare, int retryAfterSeconds,
      Adaptive adaptive) {

    /** Checks mode and adaptive are present. */
    public Inbound {
      Objects.requireNonNull(mode, "mode");
      Objects.requireNonNull(adaptive, "adaptive");
    }

    /**
     * The limit the learner starts from: {@code maxInFlight} clamped into [minLimit, maxLimit]. A
     * starting limit outside that range is not an error; it starts from the nearest bound.
     */
    public int startingLimit() {
      return Math.clamp(maxInFlight, adaptive.minLimit(), adaptive.maxLimit());
    }
  }

  /**
   * How the inbound limit is learned.
   *
   * @param minLimit lower bound of the learned limit
   * @param maxLimit upper bound of the learned limit, at least minLimit
   * @param tolerance how much slower than usual a call may get before the limit shrinks
   * @param smoothing the share of a new estimate that replaces the limit
   * @param lagTargetMillis executor lateness that counts as a stall
   */
  public record Adaptive(int minLimit, int maxLimit, double tolerance, double smoothing, int lagTargetMillis) {

    /** Checks minLimit does not exceed maxLimit. */
    public Adaptive {
      if (minLimit > maxLimit) {
        throw new IllegalArgumentException("minLimit " + minLimit + " exceeds maxLimit " + maxLimit);
      }
    }
  }

  /**
   * The outbound guard as it runs.
   *
   * @param mode off, shadow or enforce
   * @param maxConcurrent calls in flight per peer
   * @param maxQueue calls that may wait for a slot
   * @param queueTimeoutMillis longest wait for a slot
   * @param requestTimeoutMillis time until response headers
   * @param breaker the circuit breaker
   * @param retryBudget the retry budget
   */
  public record Outbound(Mode mode, int maxConcurrent, int maxQueue, int queueTimeoutMillis, int requestTimeoutMillis,
      Breaker breaker, RetryBudget retryBudget) {

    /** Checks mode, breaker and retry budget are present. */
    public Outbound {
      Objects.requireNonNull(mode, "mode");
      Objects.requireNonNull(breaker, "breaker");
      Objects.requireNonNull(retryBudget, "retryBudget");
    }
  }

  /**
   * The circuit breaker as it runs.
   *
   * @param enabled whether the breaker acts at all
   * @param failureRatio share of failed calls that opens
   * @param minCalls calls in the window before the ratio counts
   * @param windowSeconds the window the ratio is measured over
   * @param openSeconds open time before probing
   * @param probeCalls calls let through half-open
   */
  public record Breaker(boolean enabled, double failureRatio, int minCalls, int windowSeconds, int openSeconds,
      int probeCalls) {}

  /**
   * The retry budget as it runs.
   *
   * @param ratio retries allowed per call made
   * @param minPerSecond retries per second always allowed
   */
  public record RetryBudget(double ratio, int minPerSecond) {}
}
