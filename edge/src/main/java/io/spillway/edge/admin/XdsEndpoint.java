package io.spillway.edge.admin;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.spillway.edge.xds.XdsResourceType;
import io.spillway.edge.xds.XdsStatus;
import java.util.Map;
import java.util.Optional;

/**
 * {@code /xds} (ours): the ADS stream at a glance — connected or not, to which server, which
 * variant, and per resource type the accepted version, the last nonce, the last NACK and its
 * reason, whether the set came from the last-known-good file, and the resource names. JSON; a
 * static edge answers {@code {"enabled": false}}.
 */
final class XdsEndpoint implements AdminEndpoint {
  private static final ObjectMapper JSON = new ObjectMapper();

  private final AdminContext context;

  XdsEndpoint(AdminContext context) {
    this.context = context;
  }

  @Override
  public String help() {
    return "print the xDS stream's state: server, versions, last NACK per resource type";
  }

  @Override
  public boolean mutating() {
    return false;
  }

  @Override
  public AdminResponse handle(AdminRequest request) {
    ObjectNode root = JSON.createObjectNode();
    Optional<XdsStatus> status = context.xdsStatus();
    root.put("enabled", status.isPresent());
    status.ifPresent(s -> {
      root.put("connected", s.connected());
      root.put("server", s.server().orElse(""));
      root.put("variant", s.variant().name());
      ObjectNode types = root.putObject("types");
      for (Map.Entry<XdsResourceType, XdsStatus.TypeStatus> e : s.types().entrySet()) {
        XdsStatus.TypeStatus t = e.getValue();
        ObjectNode type = types.putObject(e.getKey().shortName());
        type.put("type_url", e.getKey().typeUrl());
        type.put("version", t.acceptedVersion().orElse(""));
        type.put("nonce", t.lastNonce());
        type.put("from_last_known_good", t.fromLastKnownGood());
        t.lastUpdateTime().ifPresent(time -> type.put("last_updated", time.toString()));
        t.lastNackMessage().ifPresent(m -> type.put("last_nack", m));
        t.lastNackTime().ifPresent(time -> type.put("last_nack_time", time.toString()));
        ArrayNode subscribed = type.putArray("subscribed");
        t.subscribed().forEach(subscribed::add);
        ArrayNode names = type.putArray("resources");
        t.resourceNames().forEach(names::add);
      }
    });
    return AdminResponse.json(200, root.toPrettyString() + "\n");
  }
}
