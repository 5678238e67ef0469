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

import java.util.EnumMap;
import java.util.HashSet;
import java.util.Map;
import java.util.Set;

/**
 * Builds an {@link OverloadPolicy} from field values; the one place that knows which record
 * component each {@link PolicyField} fills.
 */
final class PolicyAssembler {

  private final Map<PolicyField, Object> values;
  private final Set<String> objects;

  private PolicyAssembler(Map<PolicyField, Object> values, Set<String> objects) {
    this.values = values;
    this.objects = objects;
  }

  /**
   * A policy with exactly these values. A section record exists when one of its fields is set or
   * when its path is in {@code presentObjects} (an empty {@code "inbound": {}} stays an empty
   * section, so JSON reads back as it was written).
   */
  static OverloadPolicy assemble(Map<PolicyField, ?> values, Set<String> presentObjects) {
    Map<PolicyField, Object> typed = new EnumMap<>(PolicyField.class);
    Set<String> objects = new HashSet<>();
    for (String path : presentObjects) {
      addWithParents(objects, path);
    }
    values.forEach((field, value) -> {
      if (value != null) {
        typed.put(field, typed(field, value));
        addWithParents(objects, field.parentPath());
      }
    });
    return new PolicyAssembler(typed, objects).policy();
  }

  private static Object typed(PolicyField field, Object value) {
    if (field.type() == FieldType.NUMBER && value instanceof Number n) {
      return n.doubleValue();
    }
    if (!field.javaType().isInstance(value)) {
      throw new IllegalArgumentException(
          field.path() + " needs a value of type " + field.javaType().getSimpleName() + ", not " + value.getClass().getSimpleName());
    }
    return value;
  }

  private static void addWithParents(Set<String> objects, String path) {
    for (int dot = path.indexOf('.'); dot >= 0; dot = path.indexOf('.', dot + 1)) {
      objects.add(path.substring(0, dot));
    }
    objects.add(path);
  }

  private OverloadPolicy policy() {
    return new OverloadPolicy(inbound(), outbound());
  }

  private Inbound inbound() {
    if (!objects.contains("inbound")) {
      return null;
    }
    Adaptive adaptive = objects.contains("inbound.adaptive")
        ? new Adaptive(get(ADAPTIVE_MIN_LIMIT), get(ADAPTIVE_MAX_LIMIT), get(ADAPTIVE_TOLERANCE),
            get(ADAPTIVE_SMOOTHING), get(ADAPTIVE_LAG_TARGET_MILLIS))
        : null;
    return new Inbound(get(INBOUND_MODE), get(INBOUND_MAX_IN_FLIGHT), get(INBOUND_CONTINUATION_SHARE),
        get(INBOUND_START_SHARE), get(INBOUND_RETRY_AFTER_SECONDS), adaptive);
  }

  private Outbound outbound() {
    if (!objects.contains("outbound")) {
      return null;
    }
    Breaker breaker = objects.contains("outbound.breaker")
        ? new Breaker(get(BREAKER_ENABLED), get(BREAKER_FAILURE_RATIO), get(BREAKER_MIN_CALLS),
            get(BREAKER_WINDOW_SECONDS), get(BREAKER_OPEN_SECONDS), get(BREAKER_PROBE_CALLS))
        : null;
    RetryBudget retryBudget = objects.contains("outbound.retryBudget")
        ? new RetryBudget(get(RETRY_BUDGET_RATIO), get(RETRY_BUDGET_MIN_PER_SECOND))
        : null;
    return new Outbound(get(OUTBOUND_MODE), get(OUTBOUND_MAX_CONCURRENT), get(OUTBOUND_MAX_QUEUE),
        get(OUTBOUND_QUEUE_TIMEOUT_MILLIS), get(OUTBOUND_REQUEST_TIMEOUT_MILLIS), breaker, retryBudget);
  }

  @SuppressWarnings("unchecked")
  private <T> T get(PolicyField field) {
    return (T) values.get(field);
  }
}
