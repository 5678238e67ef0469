package io.spillway.edge.admin;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.spillway.edge.admission.AdmissionController;
import io.spillway.edge.admission.Tier;
import io.spillway.edge.overload.OverloadDescription;
import io.spillway.policy.Mode;

/**
 * {@code /overload} (ours): every resource monitor's pressure, every action's and load shed
 * point's state, and the global downstream connection count, from the overload manager's latest
 * published snapshot. JSON.
 */
final class OverloadEndpoint implements AdminEndpoint {
  private static final ObjectMapper JSON = new ObjectMapper();

  private final AdminContext context;

  OverloadEndpoint(AdminContext context) {
    this.context = context;
  }

  /** Inbound admission: mode, learned limit, in flight, each tier's bound and refusals by mode. */
  private void admission(ObjectNode root) {
    AdmissionController a = context.admission();
    if (a == null) {
      return;
    }
    ObjectNode n = root.putObject("admission");
    n.put("mode", a.mode().jsonName());
    n.put("limit", a.limit());
    n.put("in_flight", a.inFlight());
    n.put("baseline_ms", a.adaptiveLimit().baselineNanos() / 1e6);
    n.put("capacity", a.adaptiveLimit().capacity());
    n.put("retry_after_seconds", a.retryAfterSeconds());
    ObjectNode tiers = n.putObject("tiers");
    for (Tier t : Tier.values()) {
      if (t == Tier.EXEMPT) {
        continue;
      }
      ObjectNode tier = tiers.putObject(t.metadataName());
      tier.put("bound", a.tierBound(t));
      tier.put("refused_shadow", a.refused(t, Mode.SHADOW));
      tier.put("refused_enforce", a.refused(t, Mode.ENFORCE));
    }
  }

  @Override
  public String help() {
    return "print the overload manager's monitors, actions and load shed points, and inbound admission";
  }

  @Override
  public boolean mutating() {
    return false;
  }

  @Override
  public AdminResponse handle(AdminRequest request) {
    OverloadDescription d = context.overload();
    ObjectNode root = JSON.createObjectNode();
    if (d == null) {
      root.put("enabled", false);
      admission(root);
      return AdminResponse.json(200, root.toPrettyString() + "\n");
    }
    root.put("enabled", d.enabled());
    root.put("refresh_interval", d.refreshInterval().toMillis() / 1000.0 + "s");
    root.put("version", d.version());
    ArrayNode monitors = root.putArray("resource_monitors");
    for (OverloadDescription.Monitor m : d.monitors()) {
      monitors.addObject().put("name", m.name()).put("type", m.type()).put("pressure", m.pressure())
          .put("failed_updates", m.failedUpdates()).put("skipped_updates", m.skippedUpdates());
    }
    ArrayNode actions = root.putArray("actions");
    for (OverloadDescription.Action a : d.actions()) {
      actions.addObject().put("name", a.name()).put("state", a.state()).put("saturated", a.saturated());
    }
    ArrayNode points = root.putArray("loadshed_points");
    for (OverloadDescription.ShedPoint p : d.loadShedPoints()) {
      points.addObject().put("name", p.name()).put("probability", p.probability())
          .put("shed_load_count", p.shedLoadCount());
    }
    admission(root);
    ObjectNode cx = root.putObject("global_downstream_connections");
    cx.put("active", d.globalConnections().active());
    if (d.globalConnections().limit().isPresent()) {
      cx.put("limit", d.globalConnections().limit().getAsLong());
    } else {
      cx.putNull("limit");
    }
    return AdminResponse.json(200, root.toPrettyString() + "\n");
  }
}
