package io.spillway.edge.rls;

import io.spillway.edge.config.RateLimitPolicy;
import java.util.List;

/**
 * What a {@code ShouldRateLimit} call asks: a domain and the request's descriptors, each its
 * entries in order (Envoy's {@code RateLimitRequest}, {@code hits_addend} left to the service's default of 1).
 */
public record RateLimitRequest(String domain, List<List<RateLimitPolicy.Entry>> descriptors) {
  public RateLimitRequest {
    descriptors = List.copyOf(descriptors);
  }
}
