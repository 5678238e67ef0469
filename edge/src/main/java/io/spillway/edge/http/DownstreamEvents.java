package io.spillway.edge.http;

/** User events understood by the downstream connection handlers. */
public final class DownstreamEvents {
  private DownstreamEvents() {}

  /** The edge is draining: finish what is in flight, take nothing new, then close. */
  public enum Drain { INSTANCE }
}
