package io.spillway.edge.config;

import java.time.Duration;
import java.util.Set;

/**
 * Envoy's RetryPolicy, reduced to the supported conditions.
 *
 * @param retryOn any of 5xx, gateway-error, connect-failure, reset, retriable-status-codes
 * @param numRetries maximum retries (Envoy default 1 when a policy is present)
 * @param perTryTimeout per attempt; zero means the route timeout bounds the attempt
 * @param retriableStatusCodes statuses retried under retriable-status-codes
 * @param backoffBase base interval of the exponential back-off (Envoy default 25 ms)
 * @param backoffMax cap of the back-off (Envoy default 10 x base)
 */
public record RetryPolicy(
    Set<RetryOn> retryOn,
    int numRetries,
    Duration perTryTimeout,
    Set<Integer> retriableStatusCodes,
    Duration backoffBase,
    Duration backoffMax) {

  public static final RetryPolicy NONE =
      new RetryPolicy(Set.of(), 0, Duration.ZERO, Set.of(), Duration.ofMillis(25), Duration.ofMillis(250));

  public RetryPolicy {
    retryOn = Set.copyOf(retryOn);
    retriableStatusCodes = Set.copyOf(retriableStatusCodes);
  }

  public boolean enabled() {
    return numRetries > 0 && !retryOn.isEmpty();
  }

  /** A supported retry_on condition with its Envoy spelling. */
  public enum RetryOn {
    FIVE_XX("5xx"),
    GATEWAY_ERROR("gateway-error"),
    CONNECT_FAILURE("connect-failure"),
    RESET("reset"),
    RETRIABLE_STATUS_CODES("retriable-status-codes");

    private final String envoyName;

    RetryOn(String envoyName) {
      this.envoyName = envoyName;
    }

    public String envoyName() {
      return envoyName;
    }
  }
}
