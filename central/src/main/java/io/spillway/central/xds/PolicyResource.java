package io.spillway.central.xds;

import io.spillway.central.policy.PolicyState;
import io.spillway.central.policy.PolicyStore;
import io.spillway.central.policy.Section;
import io.spillway.policy.AccessLogJson;
import io.spillway.policy.AccessLogProto;
import io.spillway.policy.DeploymentDefaults;
import io.spillway.policy.ParseResult;
import io.spillway.policy.PolicyJson;
import io.spillway.policy.PolicyProto;
import io.spillway.policy.Problem;
import io.spillway.policy.RateLimitJson;
import io.spillway.policy.RateLimitProto;
import java.util.Collection;
import java.util.HashMap;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The policy resource of an edge: its {@code overload} section converted with
 * {@link PolicyProto#toProto}, its {@code rateLimits} section ({@code rate_limits},
 * {@link RateLimitProto#toProto}) and its {@code accessLog} section ({@code access_log},
 * {@link AccessLogProto#toProto}) in the same message, one resource named after the edge. The
 * version is the sum of the three sections' revisions, which only grow, so it grows with every
 * change to any. No section set (never set, or deleted) is the empty set at that version, and the
 * edge falls back to its deployment defaults, has no rate limits and only its bootstrap's access
 * logs.
 */
final class PolicyResource {

  private static final Logger log = LoggerFactory.getLogger(PolicyResource.class);

  private final PolicyStore policies;

  PolicyResource(PolicyStore policies) {
    this.policies = Objects.requireNonNull(policies, "policies");
  }

  TypeResources load(String edgeId) {
    return of(edgeId, policies.read(edgeId));
  }

  /** The policy resources of several edges (read in one transaction). */
  Map<String, TypeResources> load(Collection<String> edgeIds) {
    Map<String, PolicyState> states = policies.read(edgeIds);
    Map<String, TypeResources> resources = new HashMap<>();
    for (String edgeId : edgeIds) {
      resources.put(edgeId, of(edgeId, Optional.ofNullable(states.get(edgeId))));
    }
    return resources;
  }

  private static TypeResources of(String edgeId, Optional<PolicyState> state) {
    if (state.isEmpty()) {
      return new TypeResources("0", Map.of());
    }
    PolicyState.Entry overload = state.get().get(Section.OVERLOAD);
    PolicyState.Entry rateLimits = state.get().get(Section.RATE_LIMITS);
    PolicyState.Entry accessLog = state.get().get(Section.ACCESS_LOG);
    String version = Long.toString(overload.revision() + rateLimits.revision() + accessLog.revision());
    if (overload.value() == null && rateLimits.value() == null && accessLog.value() == null) {
      return new TypeResources(version, Map.of());
    }
    io.spillway.policy.v1.OverloadPolicy.Builder message = io.spillway.policy.v1.OverloadPolicy.newBuilder();
    if (overload.value() != null) {
      ParseResult parsed = PolicyJson.parse(overload.value(), DeploymentDefaults.builtIn());
      if (!parsed.valid()) {
        // Stored past the API's validation (written to the database directly): send what reads and let the edge judge.
        warnInvalid(edgeId, "overload", version, parsed.firstProblem());
      }
      message.mergeFrom(PolicyProto.toProto(parsed.policy()));
    }
    if (rateLimits.value() != null) {
      RateLimitJson.Result parsed = RateLimitJson.parse(rateLimits.value());
      if (!parsed.valid()) {
        warnInvalid(edgeId, "rateLimits", version, parsed.firstProblem());
      }
      message.setRateLimits(RateLimitProto.toProto(parsed.policy()));
    }
    if (accessLog.value() != null) {
      AccessLogJson.Result parsed = AccessLogJson.parse(accessLog.value());
      if (!parsed.valid()) {
        warnInvalid(edgeId, "accessLog", version, parsed.firstProblem());
      }
      message.setAccessLog(AccessLogProto.toProto(parsed.policy()));
    }
    return new TypeResources(version, Map.of(edgeId, message.build()));
  }

  private static void warnInvalid(String edgeId, String section, String version, Optional<Problem> first) {
    log.warn("the {} section of edge {} at version {} does not validate ({}); sending it as stored", section, edgeId,
        version, first.map(p -> p.field() + ": " + p.message()).orElse(""));
  }
}
