package io.spillway.edge.http;

import io.netty.util.concurrent.EventExecutor;
import io.spillway.edge.config.OverloadConfig;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;

/**
 * The one timer of an HTTP/1.1 downstream connection. It serves the connection's idle timeout
 * (no request in flight), its request-header timeout (bytes arrived, head not complete yet), and
 * the deadlines of the request in flight. It is moved only when something needs it earlier, so a
 * keep-alive connection's requests normally cost no timer operation at all: when it fires, each
 * user acts on its own expired deadline or asks again. Event loop only.
 */
final class Http1ConnectionTimer {

  /** What the timer calls on the connection. */
  interface Owner {
    /** The request in flight, told the timer fired; false when there is none. */
    boolean onStreamTimer();

    /** The request head did not arrive in time. */
    void onRequestHeadersTimeout();

    /** The connection was idle for its idle timeout. */
    void onIdleTimeout();
  }

  private final HttpConnectionManager hcm;
  private final EventExecutor executor;
  private final Owner owner;
  private ScheduledFuture<?> timer;
  private long timerAt;
  private long idleDeadline;
  private long headersDeadline;
  private long idleSince = System.nanoTime();
  private boolean stopped;

  Http1ConnectionTimer(HttpConnectionManager hcm, EventExecutor executor, Owner owner) {
    this.hcm = hcm;
    this.executor = executor;
    this.owner = owner;
  }

  /** When the connection last became idle (System.nanoTime). */
  long idleSince() {
    return idleSince;
  }

  /** No request in flight from now on: the idle timeout (scaled by reduce_timeouts) runs. */
  void startIdle() {
    idleSince = System.nanoTime();
    long nanos = idleNanos();
    if (nanos > 0) {
      idleDeadline = idleSince + nanos;
      arm(idleDeadline);
    }
  }

  /** A request head arrived: neither the idle nor the request-header timeout applies now. */
  void onRequest() {
    idleDeadline = 0;
    headersDeadline = 0;
  }

  /** Bytes arrived while no request is in flight: the request-header timeout starts, once. */
  void onBytesWhileIdle() {
    if (headersDeadline == 0) {
      long nanos = hcm.config().requestHeadersTimeout().toNanos();
      if (nanos > 0) {
        headersDeadline = System.nanoTime() + nanos;
        arm(headersDeadline);
      }
    }
  }

  /** reduce_timeouts changed while idle: the idle deadline is recomputed from when idleness began. */
  void rescaleIdle() {
    if (idleDeadline == 0) {
      return;
    }
    long nanos = idleNanos();
    if (nanos > 0) {
      idleDeadline = idleSince + nanos;
      arm(idleDeadline); // earlier: re-armed; later: the earlier timer re-arms on firing
    }
  }

  /** Calls back at or after {@code deadlineNanos}; an earlier pending firing satisfies it. */
  void arm(long deadlineNanos) {
    if (stopped) {
      return;
    }
    if (timer != null) {
      if (timerAt - deadlineNanos <= 0) {
        return; // fires earlier; whoever still needs a deadline re-arms then
      }
      timer.cancel(false);
    }
    timerAt = deadlineNanos;
    timer = executor.schedule(this::onTimer, Math.max(1, deadlineNanos - System.nanoTime()), TimeUnit.NANOSECONDS);
  }

  /** The connection is closing: nothing fires any more. */
  void stop() {
    stopped = true;
    if (timer != null) {
      timer.cancel(false);
      timer = null;
    }
  }

  private long idleNanos() {
    return hcm.overload().scaled(OverloadConfig.TimerType.HTTP_DOWNSTREAM_CONNECTION_IDLE,
        hcm.config().idleTimeout()).toNanos();
  }

  private void onTimer() {
    timer = null;
    if (stopped || owner.onStreamTimer()) {
      return;
    }
    long now = System.nanoTime();
    if (headersDeadline != 0 && now - headersDeadline >= 0) {
      stop();
      owner.onRequestHeadersTimeout();
    } else if (idleDeadline != 0 && now - idleDeadline >= 0) {
      stop();
      owner.onIdleTimeout();
    } else if (headersDeadline != 0 || idleDeadline != 0) {
      long next = headersDeadline == 0 ? idleDeadline
          : idleDeadline == 0 ? headersDeadline : Math.min(headersDeadline, idleDeadline);
      arm(next);
    }
  }
}
