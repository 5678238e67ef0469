package io.spillway.edge.http;

/** User events understood by the downstream connection handlers. */
public final class DownstreamEvents {
  private DownstreamEvents() {}

  /** The edge is draining: finish what is in flight, take nothing new, then close. */
  public enum Drain { INSTANCE }

  /**
   * close_idle_http_connections: a connection with nothing in flight that has been idle for at
   * least {@code idleNanos} closes now (0: every idle connection).
   */
  public record CloseIdle(long idleNanos) {}
}
