package io.spillway.edge.overload;

import io.spillway.edge.config.OverloadConfig;
import io.spillway.edge.config.OverloadConfig.TimerMinimum;
import io.spillway.edge.config.OverloadConfig.TimerType;
import java.time.Duration;
import java.util.EnumMap;
import java.util.Map;

/**
 * Envoy's {@code envoy.overload_actions.reduce_timeouts}: how long a scaled timer runs under the
 * current state of that action. A timer of type T configured to {@code configured} with minimum
 * {@code min} (its {@code min_timeout}, capped at {@code configured}, or {@code min_scale} of
 * {@code configured}) runs for
 *
 * <pre>  min + (configured − min) × (1 − state)</pre>
 *
 * so the full timeout at state 0 and the minimum when saturated. Example: idle timeout 600 s,
 * {@code min_timeout} 2 s, scaled trigger 0.85–0.95, pressure 0.92 → state 0.7 →
 * 2 s + 598 s × 0.3 = 181.4 s.
 *
 * <p>Timer types without a configured minimum, zero (disabled) timeouts, and a manager without
 * {@code reduce_timeouts} return the configured timeout unchanged. Results are rounded to whole
 * nanoseconds. Read-only after construction; safe on any thread.
 */
public final class ScaledTimeouts {

  /** No reduce_timeouts action: every timeout as configured. */
  public static final ScaledTimeouts NONE = new ScaledTimeouts(ActionIndex.NO_OP, Map.of());

  /** Longer timeouts are left alone (a long holds about 292 years of nanoseconds). */
  private static final Duration LONGEST_SCALED = Duration.ofDays(365L * 100);

  private final ActionIndex action;
  private final Map<TimerType, TimerMinimum> minimums;

  ScaledTimeouts(ActionIndex action, Map<TimerType, TimerMinimum> minimums) {
    this.action = action;
    this.minimums = minimums.isEmpty() ? Map.of() : new EnumMap<>(minimums);
  }

  /** The reduce_timeouts action this reads. */
  public ActionIndex action() {
    return action;
  }

  /** Whether timers of {@code type} are scaled at all. */
  public boolean scales(TimerType type) {
    return action.isConfigured() && minimums.containsKey(type);
  }

  /** The timeout a timer of {@code type} configured to {@code configured} gets under {@code state}. */
  public Duration scaledTimeout(TimerType type, Duration configured, OverloadState state) {
    TimerMinimum minimum = minimums.get(type);
    if (minimum == null || !action.isConfigured()) {
      return configured;
    }
    return scale(configured, minimum, state.actionState(action));
  }

  /** The formula itself: {@code min + (configured − min) × (1 − actionState)}. */
  public static Duration scale(Duration configured, OverloadConfig.TimerMinimum minimum, double actionState) {
    if (configured.isZero() || configured.isNegative()) {
      return configured;
    }
    if (configured.compareTo(LONGEST_SCALED) > 0) {
      return configured; // beyond what nanoseconds hold: effectively no timeout
    }
    double state = Math.min(1.0, Math.max(0.0, actionState));
    long max = configured.toNanos();
    long min = minimum.minimumFor(configured).toNanos();
    return Duration.ofNanos(min + Math.round((max - min) * (1.0 - state)));
  }

  @Override
  public String toString() {
    return "ScaledTimeouts[" + minimums + "]";
  }
}
