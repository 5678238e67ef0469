package io.spillway.edge.config;

import io.spillway.edge.config.RetryPolicy.RetryOn;
import java.time.Duration;
import java.util.LinkedHashSet;
import java.util.Set;

/** Envoy's route {@code RetryPolicy} → {@link RetryPolicy}, for routes and virtual hosts. */
final class RetryPolicyTranslator {

  private static final Duration DEFAULT_BASE_INTERVAL = Duration.ofMillis(25);

  private static final SupportedFields RETRY_POLICY = SupportedFields.of(
      io.envoyproxy.envoy.config.route.v3.RetryPolicy.getDescriptor(),
      "retry_on", "num_retries", "per_try_timeout", "retriable_status_codes", "retry_back_off");
  private static final SupportedFields BACK_OFF = SupportedFields.of(
      io.envoyproxy.envoy.config.route.v3.RetryPolicy.RetryBackOff.getDescriptor(), "base_interval", "max_interval");

  private RetryPolicyTranslator() {}

  static RetryPolicy translate(io.envoyproxy.envoy.config.route.v3.RetryPolicy p, FieldPath path)
      throws ConfigException {
    RETRY_POLICY.check(p, path);
    Set<RetryOn> retryOn = new LinkedHashSet<>();
    for (String token : p.getRetryOn().split(",")) {
      String condition = token.trim();
      if (condition.isEmpty()) {
        continue;
      }
      retryOn.add(retryOn(condition, path.field("retry_on")));
    }
    int numRetries = ProtoValues.uint32(p.hasNumRetries(), p.getNumRetries(), path.field("num_retries"), 0, 1);
    Duration perTry = ProtoValues.duration(p.hasPerTryTimeout(), p.getPerTryTimeout(), path.field("per_try_timeout"),
        Duration.ZERO);
    Set<Integer> statuses = new LinkedHashSet<>();
    for (int i = 0; i < p.getRetriableStatusCodesCount(); i++) {
      long code = Integer.toUnsignedLong(p.getRetriableStatusCodes(i));
      if (code < 100 || code > 599) {
        throw new ConfigException(path.field("retriable_status_codes").index(i), code + " is not an HTTP status");
      }
      statuses.add((int) code);
    }
    Duration base = DEFAULT_BASE_INTERVAL;
    Duration max = base.multipliedBy(10);
    if (p.hasRetryBackOff()) {
      FieldPath backOffPath = path.field("retry_back_off");
      var backOff = p.getRetryBackOff();
      BACK_OFF.check(backOff, backOffPath);
      if (!backOff.hasBaseInterval()) {
        throw new ConfigException(backOffPath.field("base_interval"), "base_interval is required");
      }
      base = ProtoValues.positiveDuration(true, backOff.getBaseInterval(), backOffPath.field("base_interval"), base);
      max = base.multipliedBy(10);
      if (backOff.hasMaxInterval()) {
        max = ProtoValues.positiveDuration(true, backOff.getMaxInterval(), backOffPath.field("max_interval"), max);
        if (max.compareTo(base) < 0) {
          throw new ConfigException(backOffPath.field("max_interval"), "must be at least base_interval");
        }
      }
    }
    return new RetryPolicy(retryOn, numRetries, perTry, statuses, base, max);
  }

  private static RetryOn retryOn(String condition, FieldPath path) throws ConfigException {
    for (RetryOn r : RetryOn.values()) {
      if (r.envoyName().equals(condition)) {
        return r;
      }
    }
    throw new ConfigException(path, condition + " is not supported");
  }
}
