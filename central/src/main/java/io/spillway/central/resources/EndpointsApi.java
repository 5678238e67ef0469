package io.spillway.central.resources;

import com.fasterxml.jackson.databind.JsonNode;
import com.google.protobuf.Message;
import io.envoyproxy.envoy.config.core.v3.Address;
import io.envoyproxy.envoy.config.core.v3.SocketAddress;
import io.envoyproxy.envoy.config.endpoint.v3.ClusterLoadAssignment;
import io.envoyproxy.envoy.config.endpoint.v3.Endpoint;
import io.envoyproxy.envoy.config.endpoint.v3.LbEndpoint;
import io.envoyproxy.envoy.config.endpoint.v3.LocalityLbEndpoints;
import com.google.protobuf.UInt32Value;
import io.javalin.http.HandlerType;
import io.spillway.central.api.ApiException;
import io.spillway.central.api.Call;
import io.spillway.central.api.Reply;
import io.spillway.central.api.Router;
import io.spillway.central.auth.Permission;
import java.util.Map;
import java.util.Objects;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * {@code /configuration/clusters/{cluster}/endpoints}: deploy tools register and deregister one
 * backend address of a cluster's ClusterLoadAssignment (the {@code endpoints} resource named after
 * the cluster), for one edge or a selector like the resource API. Each call is one atomic
 * read-modify-write under the store's change lock, so two tools adding different addresses at
 * once both land; registering an address again only updates its weight.
 *
 * <p>The locality the address goes into always carries a {@code load_balancing_weight} (1 unless
 * the body gives {@code localityWeight}): Envoy does without one, but proxyless gRPC clients
 * (grpc-java's xDS) skip a locality that has none and find no usable endpoint.
 */
public final class EndpointsApi {

  private static final Logger log = LoggerFactory.getLogger(EndpointsApi.class);

  private final ResourceStore store;

  /** The API. */
  public EndpointsApi(ResourceStore store) {
    this.store = Objects.requireNonNull(store, "store");
  }

  /** Adds the routes. */
  public void register(Router router) {
    router.route(HandlerType.POST, "/configuration/clusters/{cluster}/endpoints", Permission.EDGES_MANAGE, this::add);
    router.route(HandlerType.DELETE, "/configuration/clusters/{cluster}/endpoints/{endpoint}", Permission.EDGES_MANAGE, this::remove);
  }

  private Reply add(Call call) {
    String cluster = ResourceCalls.name(call, "cluster");
    Target target = ResourceCalls.target(call);
    Long expected = ResourceCalls.expectedRevision(call);
    boolean dryRun = ResourceCalls.dryRun(call);
    JsonNode body = call.jsonBody();
    if (!body.isObject()) {
      throw ApiException.of(400,
          "the request body must be a JSON object {\"address\", \"port\", \"weight\"?, \"localityWeight\"?}");
    }
    JsonNode addressNode = body.get("address");
    if (addressNode == null || !addressNode.isTextual() || addressNode.asText().isBlank() || addressNode.asText().length() > 255) {
      throw ApiException.of(400, "address must be an IP address");
    }
    String address = addressNode.asText();
    int port = whole(body.get("port"), "port", 1, 65_535, -1);
    int weight = whole(body.get("weight"), "weight", 1, Integer.MAX_VALUE, 0);
    int localityWeight = whole(body.get("localityWeight"), "localityWeight", 1, Integer.MAX_VALUE, 0);
    ResourceStore.Done done = ResourceCalls.done(store.change(ResourceType.ENDPOINTS, target, cluster,
        current -> withEndpoint((ClusterLoadAssignment) current, cluster, address, port, weight, localityWeight),
        expected, dryRun, call.principal().operator()), ResourceType.ENDPOINTS, target, cluster, expected);
    if (done.changed() && !dryRun) {
      log.info("endpoint {}:{} of cluster {} registered for {} by {}", ResourceCalls.loggable(address), port, cluster,
          ResourceCalls.loggable(target.toString()), call.principal().operator());
    }
    Map<String, Object> reply = ResourceCalls.json(store.codec(), done.after());
    reply.put("dryRun", dryRun);
    return done.changed() && !dryRun ? Reply.created(reply) : Reply.ok(reply);
  }

  private Reply remove(Call call) {
    String cluster = ResourceCalls.name(call, "cluster");
    String endpoint = call.pathParam("endpoint");
    int colon = endpoint.lastIndexOf(':');
    int port = -1;
    try {
      port = colon > 0 ? Integer.parseInt(endpoint.substring(colon + 1)) : -1;
    } catch (NumberFormatException e) {
      // answered below
    }
    if (port < 1 || port > 65_535) {
      throw ApiException.of(400, "the endpoint in the path is <address>:<port>, e.g. 10.0.0.7:8080 or [2001:db8::7]:8080");
    }
    String address = endpoint.substring(0, colon);
    if (address.startsWith("[") && address.endsWith("]")) {
      address = address.substring(1, address.length() - 1);
    }
    Target target = ResourceCalls.target(call);
    Long expected = ResourceCalls.expectedRevision(call);
    boolean dryRun = ResourceCalls.dryRun(call);
    String host = address;
    int p = port;
    ResourceStore.Done done = ResourceCalls.done(store.change(ResourceType.ENDPOINTS, target, cluster, current -> {
      Message after = current == null ? null : withoutEndpoint((ClusterLoadAssignment) current, host, p);
      if (after == null) {
        throw ApiException.of(404, "endpoint " + host + ":" + p + " is not registered in cluster " + cluster + " for " + target);
      }
      return after;
    }, expected, dryRun, call.principal().operator()), ResourceType.ENDPOINTS, target, cluster, expected);
    if (!dryRun) {
      log.info("endpoint {}:{} of cluster {} deregistered for {} by {}", ResourceCalls.loggable(host), port, cluster,
          ResourceCalls.loggable(target.toString()), call.principal().operator());
    }
    Map<String, Object> reply = ResourceCalls.json(store.codec(), done.after());
    reply.put("dryRun", dryRun);
    return Reply.ok(reply);
  }

  /**
   * The assignment with the address registered: its weight updated when it is there, otherwise
   * added to the first locality (created, with the assignment, when absent). The address's
   * locality is given {@code localityWeight}, or 1 when it has no weight yet.
   *
   * @param weight the load-balancing weight, or 0 for none (keeps a registered address's weight)
   * @param localityWeight the locality's load-balancing weight, or 0 to keep the one it has (1 if none)
   */
  static ClusterLoadAssignment withEndpoint(ClusterLoadAssignment current, String cluster, String address, int port,
      int weight, int localityWeight) {
    ClusterLoadAssignment.Builder assignment = current == null
        ? ClusterLoadAssignment.newBuilder().setClusterName(cluster) : current.toBuilder();
    for (LocalityLbEndpoints.Builder locality : assignment.getEndpointsBuilderList()) {
      for (LbEndpoint.Builder lb : locality.getLbEndpointsBuilderList()) {
        if (is(lb.build(), address, port)) {
          if (weight > 0) {
            lb.setLoadBalancingWeight(UInt32Value.of(weight));
          }
          weigh(locality, localityWeight);
          return assignment.build();
        }
      }
    }
    LbEndpoint.Builder lb = LbEndpoint.newBuilder().setEndpoint(Endpoint.newBuilder().setAddress(Address.newBuilder()
        .setSocketAddress(SocketAddress.newBuilder().setAddress(address).setPortValue(port))));
    if (weight > 0) {
      lb.setLoadBalancingWeight(UInt32Value.of(weight));
    }
    if (assignment.getEndpointsCount() == 0) {
      assignment.addEndpoints(LocalityLbEndpoints.newBuilder());
    }
    weigh(assignment.getEndpointsBuilder(0).addLbEndpoints(lb), localityWeight);
    return assignment.build();
  }

  /** Sets the locality's weight to {@code weight}, or to 1 when it is 0 and the locality has none. */
  private static void weigh(LocalityLbEndpoints.Builder locality, int weight) {
    if (weight > 0) {
      locality.setLoadBalancingWeight(UInt32Value.of(weight));
    } else if (!locality.hasLoadBalancingWeight() || locality.getLoadBalancingWeight().getValue() == 0) {
      locality.setLoadBalancingWeight(UInt32Value.of(1));
    }
  }

  /** The assignment without the address, or null when it is not registered there. */
  static ClusterLoadAssignment withoutEndpoint(ClusterLoadAssignment current, String address, int port) {
    ClusterLoadAssignment.Builder assignment = current.toBuilder();
    for (int l = 0; l < assignment.getEndpointsCount(); l++) {
      LocalityLbEndpoints.Builder locality = assignment.getEndpointsBuilder(l);
      for (int e = 0; e < locality.getLbEndpointsCount(); e++) {
        if (is(locality.getLbEndpoints(e), address, port)) {
          locality.removeLbEndpoints(e);
          return assignment.build();
        }
      }
    }
    return null;
  }

  private static boolean is(LbEndpoint lb, String address, int port) {
    SocketAddress socket = lb.getEndpoint().getAddress().getSocketAddress();
    return socket.getAddress().equals(address) && socket.getPortValue() == port;
  }

  private static int whole(JsonNode node, String field, int min, int max, int absent) {
    if (node == null || node.isNull()) {
      if (absent >= 0) {
        return absent;
      }
      throw ApiException.of(400, field + " is required");
    }
    if (!node.isIntegralNumber() || !node.canConvertToLong() || node.asLong() < min || node.asLong() > max) {
      throw ApiException.of(400, field + " must be a whole number from " + min + " to " + max);
    }
    return (int) node.asLong();
  }
}
