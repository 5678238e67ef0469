package io.spillway.central.xds;

import com.fasterxml.jackson.databind.JsonNode;
import io.spillway.central.policy.PolicyState;
import io.spillway.central.policy.PolicyStore;
import io.spillway.central.policy.Section;
import io.spillway.policy.DeploymentDefaults;
import io.spillway.policy.ParseResult;
import io.spillway.policy.PolicyJson;
import io.spillway.policy.PolicyProto;
import java.util.Collection;
import java.util.HashMap;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The overload policy resource of an edge: its {@code overload} section converted with
 * {@link PolicyProto#toProto}, one resource named after the edge, version = the section's
 * revision. No section (never set, or deleted) is the empty set at that revision, and the edge
 * falls back to its deployment defaults.
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
    PolicyState.Entry entry = state.get().get(Section.OVERLOAD);
    String version = Long.toString(entry.revision());
    JsonNode value = entry.value();
    if (value == null) {
      return new TypeResources(version, Map.of());
    }
    ParseResult parsed = PolicyJson.parse(value, DeploymentDefaults.builtIn());
    if (!parsed.valid()) {
      // Stored past the API's validation (written to the database directly): send what reads and let the edge judge.
      log.warn("the overload policy of edge {} at revision {} does not validate ({}); sending it as stored", edgeId,
          version, parsed.firstProblem().map(p -> p.field() + ": " + p.message()).orElse(""));
    }
    return new TypeResources(version, Map.of(edgeId, PolicyProto.toProto(parsed.policy())));
  }
}
