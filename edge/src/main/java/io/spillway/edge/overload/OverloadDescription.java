package io.spillway.edge.overload;

import java.time.Duration;
import java.util.List;
import java.util.OptionalLong;

/**
 * A plain-data view of the overload manager for the admin {@code /overload} page: every monitor's
 * pressure, every action's state and every load shed point's probability, as last published.
 *
 * @param enabled whether any monitor is configured
 * @param refreshInterval how often monitors are polled
 * @param version the version of the published {@link OverloadState}
 * @param monitors in configuration order (the global connection monitor included, when configured)
 * @param actions in configuration order
 * @param loadShedPoints in configuration order
 * @param globalConnections the global downstream connection count and its limit
 */
public record OverloadDescription(
    boolean enabled,
    Duration refreshInterval,
    long version,
    List<Monitor> monitors,
    List<Action> actions,
    List<ShedPoint> loadShedPoints,
    GlobalConnections globalConnections) {

  public OverloadDescription {
    monitors = List.copyOf(monitors);
    actions = List.copyOf(actions);
    loadShedPoints = List.copyOf(loadShedPoints);
  }

  /**
   * @param name the monitor's name
   * @param type the monitor type's well-known name
   * @param pressure the last pressure, in [0, 1]
   * @param failedUpdates {@code overload.<name>.failed_updates}
   * @param skippedUpdates {@code overload.<name>.skipped_updates}
   */
  public record Monitor(String name, String type, double pressure, long failedUpdates, long skippedUpdates) {}

  /**
   * @param name the action's name
   * @param state the action's state in [0, 1]
   * @param saturated whether the state is 1
   */
  public record Action(String name, double state, boolean saturated) {}

  /**
   * @param name the shed point's name
   * @param probability the probability that it sheds, in [0, 1]
   * @param shedLoadCount {@code overload.<name>.shed_load_count}
   */
  public record ShedPoint(String name, double probability, long shedLoadCount) {}

  /**
   * @param active connections counted now (exempt listeners included)
   * @param limit the configured limit; empty for none
   */
  public record GlobalConnections(long active, OptionalLong limit) {}
}
