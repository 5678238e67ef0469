package io.spillway.edge.overload;

import io.spillway.edge.config.OverloadConfig;

/**
 * Builds the monitor for one configured resource (every kind except the proactive
 * {@code global_downstream_max_connections}, which the manager owns). Production wiring uses
 * {@link io.spillway.edge.overload.monitor.StandardMonitors}; tests pass fakes.
 */
@FunctionalInterface
public interface ResourceMonitorFactory {

  /** The monitor for {@code config}. */
  ResourceMonitor create(OverloadConfig.ResourceMonitor config);
}
