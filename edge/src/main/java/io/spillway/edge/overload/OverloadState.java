package io.spillway.edge.overload;

/**
 * Every overload action's state and every load shed point's probability at one moment: an
 * immutable snapshot the control thread publishes after each refresh and workers read through one
 * volatile reference ({@link OverloadManager#state()}). A request that reads the snapshot once keeps
 * consistent answers for every check it makes, and a reader holding an older snapshot keeps seeing
 * its values.
 *
 * <p>Lookups are by precomputed {@link ActionIndex} / {@link ShedPointIndex}: one array load, no
 * string hashing, no allocation. Slot 0 of each array is the always-zero slot of the NO-OP handles.
 * Also carries each monitor's pressure, for the admin {@code /overload} page.
 */
public final class OverloadState {

  private final long version;
  private final double[] actionStates;
  private final double[] shedProbabilities;
  private final double[] pressures;

  /** Takes ownership of the arrays; slot 0 of the first two must be 0. */
  OverloadState(long version, double[] actionStates, double[] shedProbabilities, double[] pressures) {
    this.version = version;
    this.actionStates = actionStates;
    this.shedProbabilities = shedProbabilities;
    this.pressures = pressures;
  }

  /** The state before any refresh: everything 0. */
  static OverloadState initial(int actions, int shedPoints, int monitors) {
    return new OverloadState(0, new double[actions + 1], new double[shedPoints + 1], new double[monitors]);
  }

  /** 0 for the first snapshot, then one more for each published one. */
  public long version() {
    return version;
  }

  /** The action's state in [0, 1]: the maximum of its triggers' states. Hot path. */
  public double actionState(ActionIndex action) {
    return actionStates[action.slot];
  }

  /** Whether the action's state is above 0 (scaling or saturated). Hot path. */
  public boolean isActive(ActionIndex action) {
    return actionStates[action.slot] > 0.0;
  }

  /** Whether the action is saturated (state 1). Hot path. */
  public boolean isSaturated(ActionIndex action) {
    return actionStates[action.slot] >= 1.0;
  }

  /** The probability in [0, 1] that the shed point sheds: the maximum of its triggers' states. Hot path. */
  public double shedProbability(ShedPointIndex point) {
    return shedProbabilities[point.slot];
  }

  /** The pressure of the {@code i}-th monitor in configuration order, for admin pages. */
  double pressure(int monitor) {
    return pressures[monitor];
  }

  double actionState(int slot) {
    return actionStates[slot];
  }

  double shedProbability(int slot) {
    return shedProbabilities[slot];
  }

  @Override
  public String toString() {
    return "OverloadState[version=" + version + ", actions=" + java.util.Arrays.toString(actionStates)
        + ", shedPoints=" + java.util.Arrays.toString(shedProbabilities) + "]";
  }
}
