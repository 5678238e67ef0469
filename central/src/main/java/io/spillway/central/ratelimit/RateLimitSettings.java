package io.spillway.central.ratelimit;

import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Objects;

/**
 * How central's rate limit service runs.
 *
 * @param configFiles the limits, one domain per file (Lyft's ratelimit format); the service is
 *     served only when there is at least one
 * @param redisUri where the counters live, e.g. {@code redis://127.0.0.1:6379}
 * @param keyPrefix put before every counter's key (several deployments or test runs sharing one Redis)
 * @param redisTimeout the longest a check waits for Redis before it answers with an error
 */
public record RateLimitSettings(List<Path> configFiles, String redisUri, String keyPrefix, Duration redisTimeout) {

  /** The default Redis: the local one. */
  public static final String DEFAULT_REDIS_URI = "redis://127.0.0.1:6379";
  /** The default bound on a Redis round trip: 50 ms. */
  public static final Duration DEFAULT_REDIS_TIMEOUT = Duration.ofMillis(50);

  /** Checks the values. */
  public RateLimitSettings {
    configFiles = List.copyOf(configFiles);
    Objects.requireNonNull(redisUri, "redisUri");
    keyPrefix = keyPrefix == null ? "" : keyPrefix;
    if (redisTimeout == null || redisTimeout.isNegative() || redisTimeout.isZero()) {
      throw new IllegalArgumentException("the Redis timeout must be positive");
    }
  }

  /** Whether the service is served. */
  public boolean enabled() {
    return !configFiles.isEmpty();
  }
}
