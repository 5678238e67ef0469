package io.spillway.edge.rls;

import java.time.Duration;
import java.util.concurrent.Executor;
import java.util.function.Consumer;

/**
 * Asks one rate limit service (a gRPC {@code envoy.service.ratelimit.v3.RateLimitService} behind a
 * cluster) whether a request is over its limits. Never blocks the caller: the answer comes later, on
 * the executor given.
 */
public interface RateLimitClient {

  /**
   * Starts a {@code ShouldRateLimit} call. {@code onAnswer} runs once on {@code loop} (the request's
   * worker) with the answer or an {@link RateLimitAnswer.Code#ERROR}, unless the loop has shut down
   * or the call was cancelled first.
   *
   * @param timeout the call's deadline from now; zero = none
   */
  PendingCall shouldRateLimit(RateLimitRequest request, Duration timeout, Executor loop,
      Consumer<RateLimitAnswer> onAnswer);

  /** A call on its way. */
  interface PendingCall {
    /** Abandons the call (the request went away). */
    void cancel();
  }
}
