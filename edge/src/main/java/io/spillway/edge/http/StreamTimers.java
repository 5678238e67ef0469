package io.spillway.edge.http;

import io.spillway.edge.config.OverloadConfig;
import io.spillway.edge.config.Route;
import io.spillway.edge.router.RouteEntry;
import java.time.Duration;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;

/**
 * One stream's deadlines. The idle deadline (from the last activity; the route's
 * {@code idle_timeout}, else the connection manager's {@code stream_idle_timeout}, scaled by
 * reduce_timeouts) and the response deadline a filter sets (the router's route timeout) share the
 * connection's one timer through {@link Downstream#armTimer}: activity does not move it; when it
 * fires, {@link #onTimer()} checks what really expired and asks again for the rest. The request
 * timeout runs on its own task, and only while a request body is still arriving.
 */
final class StreamTimers {

  /** What the stream does when a deadline passes. */
  interface Expiry {
    void onIdleTimeout();

    void onRequestTimeout();
  }

  private final HttpConnectionManager hcm;
  private final Downstream downstream;
  private final Expiry expiry;
  private Duration idleTimeout;
  private long lastActivityNanos;
  private long responseDeadline;
  private Runnable onResponseDeadline;
  private ScheduledFuture<?> requestTimer;
  private boolean stopped;

  StreamTimers(HttpConnectionManager hcm, Downstream downstream, Expiry expiry, long startNanos) {
    this.hcm = hcm;
    this.downstream = downstream;
    this.expiry = expiry;
    this.lastActivityNanos = startNanos;
    this.idleTimeout = hcm.config().streamIdleTimeout();
  }

  /** The route is known: its idle timeout, if it has one, replaces the connection manager's. */
  void setRoute(RouteEntry route) {
    Route.RouteAction action = route == null ? null : route.routeAction();
    if (action != null && action.idleTimeout().isPresent()) {
      idleTimeout = action.idleTimeout().get();
    }
  }

  void touch() {
    lastActivityNanos = System.nanoTime();
  }

  /** Starts the request timeout while the body arrives ({@code request_timeout}); 0 means none. */
  void startRequestTimer(long nanos) {
    if (nanos > 0) {
      requestTimer = downstream.worker().loop().schedule(this::requestTimedOut, nanos, TimeUnit.NANOSECONDS);
    }
  }

  /** The request is complete: its timeout no longer applies. */
  void cancelRequestTimer() {
    if (requestTimer != null) {
      requestTimer.cancel(false);
      requestTimer = null;
    }
  }

  void setResponseDeadline(long deadlineNanos, Runnable onExpiry) {
    responseDeadline = deadlineNanos;
    onResponseDeadline = onExpiry;
    arm();
  }

  /** Asks the connection for a callback at the earlier of the response and idle deadlines. */
  void arm() {
    if (stopped) {
      return;
    }
    long idle = scaledIdleNanos();
    long next = Long.MAX_VALUE;
    if (idle > 0) {
      next = lastActivityNanos + idle;
    }
    if (responseDeadline != 0) {
      next = Math.min(next, responseDeadline);
    }
    if (next != Long.MAX_VALUE) {
      downstream.armTimer(next);
    }
  }

  /** The connection's timer fired: act on an expired response or idle deadline, else re-arm. */
  void onTimer() {
    if (stopped) {
      return;
    }
    long now = System.nanoTime();
    if (responseDeadline != 0 && now - responseDeadline >= 0) {
      responseDeadline = 0;
      onResponseDeadline.run();
      return;
    }
    long idle = scaledIdleNanos();
    if (idle > 0 && now - lastActivityNanos >= idle) {
      expiry.onIdleTimeout();
      return;
    }
    arm();
  }

  /** The stream ended: nothing fires any more. */
  void stop() {
    stopped = true;
    cancelRequestTimer();
  }

  private long scaledIdleNanos() {
    return hcm.overload().scaled(OverloadConfig.TimerType.HTTP_DOWNSTREAM_STREAM_IDLE, idleTimeout).toNanos();
  }

  private void requestTimedOut() {
    requestTimer = null;
    if (!stopped) {
      expiry.onRequestTimeout();
    }
  }
}
