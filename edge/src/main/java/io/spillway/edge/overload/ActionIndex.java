package io.spillway.edge.overload;

/**
 * A configured overload action's slot in every {@link OverloadState} of one
 * {@link OverloadManager}, resolved by name once, when the component that checks the action is
 * built ({@link OverloadManager#actionHandle(String)}). An action that is not configured resolves
 * to {@link #NO_OP}, whose state is always 0.
 */
public final class ActionIndex {

  /** The handle of an action that is not configured: never active. */
  public static final ActionIndex NO_OP = new ActionIndex(0, "");

  final int slot;
  private final String name;

  ActionIndex(int slot, String name) {
    this.slot = slot;
    this.name = name;
  }

  /** Whether the action is configured (its state can be above 0). */
  public boolean isConfigured() {
    return slot != 0;
  }

  /** The action's name; empty for {@link #NO_OP}. */
  public String name() {
    return name;
  }

  @Override
  public String toString() {
    return isConfigured() ? "ActionIndex[" + name + " @" + slot + "]" : "ActionIndex[NO_OP]";
  }
}
