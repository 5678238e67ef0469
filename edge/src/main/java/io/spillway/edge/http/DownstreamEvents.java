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

  /**
   * reduce_timeouts changed its state: recompute the running scaled timers (connection idle, and
   * the stream idle of requests in flight; an HTTP/2 connection passes it on to its streams) from
   * when they started, so a connection idle for longer than
   * its new, shorter timeout closes now rather than when the old timeout ends.
   */
  public enum RescaleTimers { INSTANCE }

  /**
   * reset_high_memory_stream: every HTTP/2 stream holding at least {@code thresholdBytes} of
   * buffered memory is reset, as long as its worker's {@code budget} (one slot per worker, written
   * only by that worker's loop) lasts; each reset is counted in {@code resets}.
   */
  public record ResetHighMemory(long thresholdBytes, int[] budget, io.spillway.edge.stats.Counter resets) {}
}
