package io.spillway.edge.overload;

/**
 * A configured load shed point's slot in every {@link OverloadState} of one
 * {@link OverloadManager}; {@link #NO_OP} (probability always 0) for a point that is not
 * configured.
 */
public final class ShedPointIndex {

  /** The index of a shed point that is not configured: never sheds. */
  public static final ShedPointIndex NO_OP = new ShedPointIndex(0, "");

  final int slot;
  private final String name;

  ShedPointIndex(int slot, String name) {
    this.slot = slot;
    this.name = name;
  }

  /** Whether the point is configured. */
  public boolean isConfigured() {
    return slot != 0;
  }

  /** The point's name; empty for {@link #NO_OP}. */
  public String name() {
    return name;
  }

  @Override
  public String toString() {
    return isConfigured() ? "ShedPointIndex[" + name + " @" + slot + "]" : "ShedPointIndex[NO_OP]";
  }
}
