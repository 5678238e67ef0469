package io.spillway.edge.server;

import io.spillway.policy.OverloadPolicy;
import io.spillway.policy.RateLimitPolicy;
import java.util.Optional;

/**
 * What the control plane's policy resource ({@code spillway.policy.v1.OverloadPolicy}) holds for
 * this edge, validated.
 *
 * @param overload the overload policy, or empty when the resource carries only rate limits (then
 *     the policy file and the deployment decide, as without a resource)
 * @param rateLimits the {@code rateLimits} section; {@link RateLimitPolicy#EMPTY} when unset
 */
record ControlPlanePolicy(Optional<OverloadPolicy> overload, RateLimitPolicy rateLimits) {}
