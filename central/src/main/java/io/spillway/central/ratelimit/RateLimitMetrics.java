package io.spillway.central.ratelimit;

import io.prometheus.metrics.core.metrics.Counter;
import io.prometheus.metrics.core.metrics.Histogram;
import io.prometheus.metrics.model.registry.PrometheusRegistry;
import java.util.Set;

/** The rate limit service's metrics, in central's registry (shown on {@code /metrics}). */
final class RateLimitMetrics {

  /** How a call was answered: the {@code code} label. */
  enum Code {
    /** {@code OK}: every descriptor under its limit (or without one). */
    OK("ok"),
    /** {@code OVER_LIMIT}: at least one descriptor over its limit. */
    OVER_LIMIT("over_limit"),
    /** {@code UNAVAILABLE}: Redis failed or was slower than the timeout; the caller's failure mode decides. */
    ERROR("error"),
    /** {@code INVALID_ARGUMENT}: no domain, no descriptors, an empty entry, a bad override. */
    INVALID("invalid"),
    /** {@code PERMISSION_DENIED}: the credential is not a registered edge's. */
    DENIED("denied");

    final String label;

    Code(String label) {
      this.label = label;
    }
  }

  /** The {@code domain} label of a domain no file configures (keeps the label set bounded). */
  static final String OTHER_DOMAIN = "_other";

  private final Set<String> domains;
  private final Counter requests;
  private final Counter redisErrors;
  private final Counter shadowOverLimit;
  private final Histogram latency;

  RateLimitMetrics(PrometheusRegistry registry, Set<String> domains) {
    this.domains = Set.copyOf(domains);
    requests = Counter.builder()
        .name("central_ratelimit_requests_total")
        .help("ShouldRateLimit calls answered, by domain (_other for one no file configures) and code "
            + "(ok, over_limit, error, invalid, denied)")
        .labelNames("domain", "code")
        .register(registry);
    redisErrors = Counter.builder()
        .name("central_ratelimit_redis_errors_total")
        .help("Redis round trips that failed, by reason: timeout (slower than --redis-timeout) or error "
            + "(refused, disconnected, a Redis error)")
        .labelNames("reason")
        .register(registry);
    shadowOverLimit = Counter.builder()
        .name("central_ratelimit_shadow_over_limit_total")
        .help("Descriptors over a shadow_mode limit, answered OK, by domain")
        .labelNames("domain")
        .register(registry);
    latency = Histogram.builder()
        .name("central_ratelimit_latency_seconds")
        .help("From a ShouldRateLimit call arriving to its answer being sent, Redis round trip included")
        .classicUpperBounds(0.0001, 0.00025, 0.0005, 0.001, 0.002, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25)
        .register(registry);
  }

  String domainLabel(String domain) {
    return domains.contains(domain) ? domain : OTHER_DOMAIN;
  }

  void answered(String domain, Code code, long nanos) {
    requests.labelValues(domainLabel(domain), code.label).inc();
    latency.observe(nanos / 1e9);
  }

  void redisTimeout() {
    redisErrors.labelValues("timeout").inc();
  }

  void redisError() {
    redisErrors.labelValues("error").inc();
  }

  void shadowOverLimit(String domain) {
    shadowOverLimit.labelValues(domainLabel(domain)).inc();
  }
}
