package io.spillway.edge.authz;

import java.time.Duration;
import java.util.concurrent.Executor;
import java.util.function.Consumer;

/**
 * Checks requests with one authorization service (a gRPC {@code envoy.service.auth.v3.Authorization}
 * behind a cluster). Never blocks the caller: the answer comes later, on the executor given.
 */
public interface AuthorizationClient {

  /**
   * Starts a check. {@code onAnswer} runs once on {@code loop} (the request's worker) with the
   * answer or an {@link AuthzAnswer.Verdict#ERROR}, unless the loop has shut down; it may still
   * run after {@link PendingCheck#cancel()}, so the caller ignores what comes after it gave up.
   *
   * @param timeout the call's deadline from now; zero = none
   */
  PendingCheck check(AuthzRequest request, Duration timeout, Executor loop, Consumer<AuthzAnswer> onAnswer);

  /** A check on its way. */
  interface PendingCheck {
    /** Abandons the call (the request went away). */
    void cancel();
  }
}
