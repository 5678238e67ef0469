package io.spillway.edge.admin;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.spillway.edge.filters.policylimit.PolicyRateLimits;

/**
 * {@code /ratelimits} (ours): the policy's rate limits in force — each limit's key, mode, rate and
 * burst, the key values it tracks now (and its cap and evictions), and its checked and refused
 * counts by mode. JSON.
 */
final class RateLimitsEndpoint implements AdminEndpoint {
  private static final ObjectMapper JSON = new ObjectMapper();

  private final AdminContext context;

  RateLimitsEndpoint(AdminContext context) {
    this.context = context;
  }

  @Override
  public String help() {
    return "print the policy's rate limits: mode, keys tracked, checked and refused counts";
  }

  @Override
  public boolean mutating() {
    return false;
  }

  @Override
  public AdminResponse handle(AdminRequest request) {
    ObjectNode root = JSON.createObjectNode();
    ArrayNode limits = root.putArray("limits");
    PolicyRateLimits rateLimits = context.policyRateLimits();
    if (rateLimits != null) {
      for (PolicyRateLimits.Description d : rateLimits.describe()) {
        ObjectNode limit = limits.addObject()
            .put("name", d.name())
            .put("key", d.key())
            .put("mode", d.mode().jsonName())
            .put("scope", d.scope().jsonName())
            .put("rate", d.rate())
            .put("burst", d.burst())
            .put("keys_tracked", d.keysTracked())
            .put("max_keys", d.maxKeys())
            .put("evictions", d.evictions())
            .put("checked", d.checked());
        limit.putObject("refused").put("shadow", d.refusedShadow()).put("enforce", d.refusedEnforce());
        if (d.scope() == io.spillway.policy.RateLimitScope.FLEET) {
          limit.putObject("fleet").put("calls", d.fleetCalls()).put("fallbacks", d.fallbacks());
        }
      }
    }
    return AdminResponse.json(200, root.toPrettyString() + "\n");
  }
}
