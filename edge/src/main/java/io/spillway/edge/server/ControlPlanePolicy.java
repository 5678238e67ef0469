package io.spillway.edge.server;

import io.spillway.policy.DeploymentDefaults;
import io.spillway.policy.OverloadPolicy;
import io.spillway.policy.ParseResult;
import io.spillway.policy.PolicyProto;
import io.spillway.policy.RateLimitJson;
import io.spillway.policy.RateLimitProto;
import io.spillway.policy.RateLimitsPolicy;
import java.util.Optional;

/**
 * What the control plane's policy resource ({@code spillway.policy.v1.OverloadPolicy}) holds for
 * this edge, validated.
 *
 * @param overload the overload policy, or empty when the resource carries only rate limits (then
 *     the policy file and the deployment decide, as without a resource)
 * @param rateLimits the {@code rateLimits} section; {@link RateLimitsPolicy#EMPTY} when unset
 */
record ControlPlanePolicy(Optional<OverloadPolicy> overload, RateLimitsPolicy rateLimits) {

  /**
   * Validates a received resource: the overload policy over the deployment's baseline, the rate
   * limits along their table.
   *
   * @throws IllegalArgumentException with the first problem of either, the NACK's message
   */
  static ControlPlanePolicy decode(io.spillway.policy.v1.OverloadPolicy resource, DeploymentDefaults defaults) {
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
    }
    boolean overloadSent = resource.hasInbound() || resource.hasOutbound() || !resource.hasRateLimits();
    return new ControlPlanePolicy(overloadSent ? Optional.of(parsed.policy()) : Optional.empty(), rateLimits);
  }
}
