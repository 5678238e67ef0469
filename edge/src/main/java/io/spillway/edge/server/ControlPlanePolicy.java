package io.spillway.edge.server;

import io.spillway.edge.config.AccessLogConfig;
import io.spillway.edge.config.ConfigException;
import io.spillway.edge.config.PolicyAccessLogTranslator;
import io.spillway.policy.AccessLogJson;
import io.spillway.policy.AccessLogProto;
import io.spillway.policy.DeploymentDefaults;
import io.spillway.policy.OverloadPolicy;
import io.spillway.policy.ParseResult;
import io.spillway.policy.PolicyProto;
import io.spillway.policy.RateLimitJson;
import io.spillway.policy.RateLimitField;
import io.spillway.policy.RateLimitProto;
import io.spillway.policy.RateLimitScope;
import io.spillway.policy.RateLimitsPolicy;
import java.nio.file.Path;
import java.util.Optional;

/**
 * What the control plane's policy resource ({@code spillway.policy.v1.OverloadPolicy}) holds for
 * this edge, validated.
 *
 * @param overload the overload policy, or empty when the resource carries only rate limits (then
 *     the policy file and the deployment decide, as without a resource)
 * @param rateLimits the {@code rateLimits} section; {@link RateLimitsPolicy#EMPTY} when unset
 * @param accessLog the {@code accessLog} section translated like a bootstrap {@code access_log}
 *     entry; empty when unset
 */
record ControlPlanePolicy(Optional<OverloadPolicy> overload, RateLimitsPolicy rateLimits,
    Optional<AccessLogConfig> accessLog) {

  /**
   * Validates a received resource: the overload policy over the deployment's baseline, the rate
   * limits and the access log along their tables, the access log's format by the edge's parser and
   * its file under {@code accessLogDirectory}; a fleet-wide limit only when the edge has a Redis.
   *
   * @param fleetAvailable whether the edge was started with {@code --redis-uri}
   * @throws IllegalArgumentException with the first problem of any, the NACK's message
   */
  static ControlPlanePolicy decode(io.spillway.policy.v1.OverloadPolicy resource, DeploymentDefaults defaults,
      Path accessLogDirectory, boolean fleetAvailable) {
    ParseResult parsed = PolicyProto.parse(resource, defaults);
    if (!parsed.valid()) {
      throw new IllegalArgumentException(parsed.firstProblem().orElseThrow().message());
    }
    RateLimitsPolicy rateLimits = RateLimitsPolicy.EMPTY;
    if (resource.hasRateLimits()) {
      RateLimitJson.Result limits = RateLimitProto.parse(resource.getRateLimits());
      if (!limits.valid()) {
        throw new IllegalArgumentException(limits.firstProblem().orElseThrow().message());
      }
      rateLimits = limits.policy();
      if (!fleetAvailable) {
        for (int i = 0; i < rateLimits.limits().size(); i++) {
          if (rateLimits.limits().get(i).effectiveScope() == RateLimitScope.FLEET) {
            throw new IllegalArgumentException(RateLimitField.SCOPE.at(i).path()
                + " is fleet, but this edge was started without --redis-uri: it has no shared count to use");
          }
        }
      }
    }
    Optional<AccessLogConfig> accessLog = Optional.empty();
    if (resource.hasAccessLog()) {
      AccessLogJson.Result log = AccessLogProto.parse(resource.getAccessLog());
      if (!log.valid()) {
        throw new IllegalArgumentException(log.firstProblem().orElseThrow().message());
      }
      try {
        accessLog = Optional.of(PolicyAccessLogTranslator.translate(log.policy(), accessLogDirectory));
      } catch (ConfigException e) {
        throw new IllegalArgumentException(e.getMessage(), e);
      }
    }
    boolean overloadSent = resource.hasInbound() || resource.hasOutbound()
        || (!resource.hasRateLimits() && !resource.hasAccessLog());
    return new ControlPlanePolicy(overloadSent ? Optional.of(parsed.policy()) : Optional.empty(), rateLimits,
        accessLog);
  }
}
