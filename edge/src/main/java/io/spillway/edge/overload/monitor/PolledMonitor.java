package io.spillway.edge.overload.monitor;

import io.spillway.edge.overload.ResourceMonitor;

/**
 * A monitor that measures synchronously: {@link #readPressure()} either returns the pressure or
 * throws, and the callbacks are answered before {@link #updateResourceUsage(Callbacks)} returns.
 */
public abstract class PolledMonitor implements ResourceMonitor {

  @Override
  public final void updateResourceUsage(Callbacks callbacks) {
    double pressure;
    try {
      pressure = readPressure();
    } catch (Exception e) {
      callbacks.onFailure(e);
      return;
    }
    callbacks.onSuccess(pressure);
  }

  /** One measurement; throws when the resource cannot be read. Control thread. */
  protected abstract double readPressure() throws Exception;
}
