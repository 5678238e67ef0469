package io.spillway.edge.overload;

/**
 * Measures one resource's pressure, a value in [0, 1], when the {@link OverloadManager} asks.
 *
 * <p>{@link #updateResourceUsage(Callbacks)} runs on the control thread and must answer through
 * exactly one of the callbacks, either at once (every monitor Spillway ships reads synchronously)
 * or later; a monitor that answers later must call back on the control thread. Until it answers,
 * the manager skips this monitor at each refresh and counts {@code skipped_updates}. A monitor that
 * cannot read reports {@link Callbacks#onFailure(Exception)}: the manager then keeps the last
 * pressure and counts {@code failed_updates}; a monitor never reports 0 because it failed.
 */
@FunctionalInterface
public interface ResourceMonitor {

  /** Starts one measurement; the result arrives through {@code callbacks}. */
  void updateResourceUsage(Callbacks callbacks);

  /** Where a measurement ends. Only the first call of either method counts. */
  interface Callbacks {

    /** The resource's pressure, normally in [0, 1]; larger values count as 1, smaller as 0. */
    void onSuccess(double pressure);

    /** The measurement failed; the previous pressure stays in effect. */
    void onFailure(Exception error);
  }
}
