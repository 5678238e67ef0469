package io.spillway.central.edges;

import com.fasterxml.jackson.databind.JsonNode;
import io.javalin.http.HandlerType;
import io.spillway.central.api.ApiException;
import io.spillway.central.api.Call;
import io.spillway.central.api.Json;
import io.spillway.central.api.Reply;
import io.spillway.central.api.Router;
import io.spillway.central.auth.Permission;
import io.spillway.central.auth.Secrets;
import io.spillway.central.store.Rows;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Objects;
import java.util.TreeMap;
import java.util.regex.Pattern;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * {@code /configuration/edges}: register (answers the edge's credential once), list with a label
 * selector, get, relabel, replace the credential (answered once again), deregister. Reading needs {@code edges:read}, changing {@code edges:manage}.
 */
public final class EdgesApi {

  private static final Logger log = LoggerFactory.getLogger(EdgesApi.class);
  private static final Pattern ID = Pattern.compile("[A-Za-z0-9][A-Za-z0-9._:-]{0,127}");

  /** Credential prefix, so a leaked edge credential is recognisable. */
  public static final String CREDENTIAL_PREFIX = "spe_";

  private final EdgeStore store;
  private final Secrets secrets;
  private final Json json;
  private final java.util.function.Consumer<String> changed;

  private final java.util.function.Function<String, java.util.Optional<String>> resourceProblem;
  private final EdgeGauges gauges;

  /**
   * @param changed told, after commit, of an edge whose labels, credential or registration changed:
   *     its resources by selector may differ, and its open xDS streams must present the new
   *     credential (the xDS server ends streams whose credential no longer holds)
   * @param resourceProblem the first problem of what an edge would receive with its labels as
   *     stored (in the transaction that registers or relabels it), or empty: the change is refused
   *     with 409 when the selectors its new labels match would give it resources it would NACK
   * @param gauges the edges' reported gauges ({@code /configuration/edges/{id}/metrics}); a
   *     deregistered edge's are forgotten
   */
  public EdgesApi(EdgeStore store, Secrets secrets, Json json, java.util.function.Consumer<String> changed,
      java.util.function.Function<String, java.util.Optional<String>> resourceProblem, EdgeGauges gauges) {
    this.store = Objects.requireNonNull(store, "store");
    this.secrets = Objects.requireNonNull(secrets, "secrets");
    this.json = Objects.requireNonNull(json, "json");
    this.changed = Objects.requireNonNull(changed, "changed");
    this.resourceProblem = Objects.requireNonNull(resourceProblem, "resourceProblem");
    this.gauges = Objects.requireNonNull(gauges, "gauges");
  }

  /** Throws 409 (rolling the registry change back) when the edge's resources would not hold together. */
  private void checkResources(String id) {
    resourceProblem.apply(id).ifPresent(problem -> {
      throw ApiException.of(409, "with these labels, edge " + id + " would receive resources it would refuse: " + problem);
    });
  }

  /**
   * Adds the routes. Call after the policy routes: {@code /configuration/edges/policies} must be
   * matched before {@code /configuration/edges/{id}}.
   */
  public void register(Router router) {
    router.route(HandlerType.POST, "/configuration/edges", Permission.EDGES_MANAGE, this::create);
    router.route(HandlerType.GET, "/configuration/edges", Permission.EDGES_READ, this::list);
    router.route(HandlerType.GET, "/configuration/edges/{id}", Permission.EDGES_READ, call ->
        Reply.ok(edgeJson(store.get(call.pathParam("id")).orElseThrow(() -> notFound(call.pathParam("id"))))));
    router.route(HandlerType.PATCH, "/configuration/edges/{id}", Permission.EDGES_MANAGE, this::relabel);
    router.route(HandlerType.DELETE, "/configuration/edges/{id}", Permission.EDGES_MANAGE, this::deregister);
    router.route(HandlerType.POST, "/configuration/edges/{id}/credential", Permission.EDGES_MANAGE, this::rotateCredential);
    router.route(HandlerType.GET, "/configuration/edges/{id}/metrics", Permission.EDGES_READ, this::metrics);
  }

  private Reply create(Call call) {
    JsonNode body = call.jsonBody();
    if (!body.isObject()) {
      throw ApiException.of(400, "the request body must be a JSON object");
    }
    JsonNode idNode = body.get("id");
    String id = idNode != null && idNode.isTextual() ? idNode.asText() : null;
    if (id == null || !ID.matcher(id).matches() || id.equals("policies")) {
      throw ApiException.of(400, "id must be 1 to 128 letters, digits or . _ : -, starting with a letter or digit (and not 'policies')");
    }
    Map<String, String> labels = Labels.read(body.get("labels"));
    String credential = secrets.generate(CREDENTIAL_PREFIX);
    EdgeStore.Edge edge = store.inOneTransaction(() -> {
      EdgeStore.Edge registered = store.register(id, labels, Secrets.hash(credential))
          .orElseThrow(() -> ApiException.of(409, "edge " + id + " is already registered"));
      checkResources(id);
      return registered;
    });
    log.info("edge {} registered by {}", id, call.principal().operator());
    Map<String, Object> reply = edgeJson(edge);
    reply.put("credential", credential);
    return Reply.created(reply);
  }

  private Reply list(Call call) {
    LabelSelector selector;
    try {
      selector = LabelSelector.parse(call.queryParam("selector"));
    } catch (IllegalArgumentException e) {
      throw ApiException.of(400, e.getMessage());
    }
    return Reply.ok(Map.of("edges", store.list().stream().filter(e -> selector.matches(e.labels())).map(this::edgeJson).toList()));
  }

  private Reply relabel(Call call) {
    String id = call.pathParam("id");
    JsonNode body = call.jsonBody();
    if (!body.isObject() || !body.has("labels")) {
      throw ApiException.of(400, "the request body must be a JSON object with labels");
    }
    Map<String, String> labels = Labels.read(body.get("labels"));
    EdgeStore.Edge edge = store.inOneTransaction(() -> {
      EdgeStore.Edge relabelled = store.relabel(id, labels).orElseThrow(() -> notFound(id));
      checkResources(id);
      return relabelled;
    });
    changed.accept(id);
    log.info("edge {} relabelled by {}", id, call.principal().operator());
    return Reply.ok(edgeJson(edge));
  }

  private Reply rotateCredential(Call call) {
    String id = call.pathParam("id");
    String credential = secrets.generate(CREDENTIAL_PREFIX);
    if (!store.rotateCredential(id, Secrets.hash(credential))) {
      throw notFound(id);
    }
    log.info("credential of edge {} replaced by {}", id, call.principal().operator());
    changed.accept(id);
    return Reply.ok(Map.of("id", id, "credential", credential));
  }

  private Reply deregister(Call call) {
    String id = call.pathParam("id");
    if (!store.deregister(id)) {
      throw notFound(id);
    }
    gauges.forget(id);
    log.info("edge {} deregistered by {}", id, call.principal().operator());
    changed.accept(id);
    return Reply.noContent();
  }

  /**
   * The edge's reported gauges over the last 15 minutes, oldest first: limit, in flight, executor
   * lag, refusals per mode and tier in the interval, and per peer in flight, waiting and breaker.
   */
  private Reply metrics(Call call) {
    String id = call.pathParam("id");
    if (store.credentialHash(id).isEmpty()) {
      throw notFound(id);
    }
    EdgeGauges.Series series = gauges.series(id).orElse(new EdgeGauges.Series(0, java.util.List.of()));
    Map<String, Object> reply = new LinkedHashMap<>();
    reply.put("edgeId", id);
    int intervalMs = series.intervalMs() > 0 ? series.intervalMs() : 5_000;
    reply.put("intervalSeconds", intervalMs % 1000 == 0 ? (Object) (intervalMs / 1000) : (Object) (intervalMs / 1000.0));
    java.util.List<Map<String, Object>> points = new java.util.ArrayList<>(series.points().size());
    for (EdgeGauges.Point p : series.points()) {
      Map<String, Object> point = new LinkedHashMap<>();
      point.put("t", p.timeMs());
      point.put("mode", EdgeGauges.MODES.get(p.mode()));
      point.put("limit", p.limit());
      point.put("inFlight", p.inFlight());
      point.put("lagMs", p.lagMs());
      Map<String, Object> refused = new LinkedHashMap<>();
      for (String mode : java.util.List.of("enforce", "shadow")) {
        Map<String, Integer> tiers = new LinkedHashMap<>();
        for (int t = 0; t < EdgeGauges.TIERS.size(); t++) {
          tiers.put(EdgeGauges.TIERS.get(t), p.refused(mode.equals("shadow"), t));
        }
        refused.put(mode, tiers);
      }
      point.put("refused", refused);
      Map<String, Object> peers = new LinkedHashMap<>();
      for (int i = 0; i < p.peerNames().length; i++) {
        Map<String, Object> peer = new LinkedHashMap<>();
        peer.put("inFlight", p.peerInFlight()[i]);
        peer.put("waiting", p.peerWaiting()[i]);
        peer.put("breaker", EdgeGauges.BREAKER_STATES.get(p.peerBreaker()[i]));
        peers.put(p.peerNames()[i], peer);
      }
      point.put("peers", peers);
      points.add(point);
    }
    reply.put("points", points);
    return Reply.ok(reply);
  }

  private static ApiException notFound(String id) {
    return ApiException.of(404, "no edge " + id);
  }

  private Map<String, Object> edgeJson(EdgeStore.Edge edge) {
    Map<String, Object> reply = new LinkedHashMap<>();
    reply.put("id", edge.id());
    reply.put("labels", new TreeMap<>(edge.labels()));
    reply.put("createdAt", Rows.text(edge.createdAt()));
    reply.put("updatedAt", Rows.text(edge.updatedAt()));
    EdgeStore.Status status = edge.status();
    Map<String, Object> statusJson = new LinkedHashMap<>();
    statusJson.put("connected", status.connected());
    statusJson.put("lastSeen", Rows.text(status.lastSeen()));
    statusJson.put("ackedVersions", status.ackedVersions() == null ? null : json.parseStored(status.ackedVersions()));
    if (status.lastNack() == null) {
      statusJson.put("lastNack", null);
    } else {
      Map<String, Object> nack = new LinkedHashMap<>();
      nack.put("type", status.lastNack().type());
      nack.put("version", status.lastNack().version());
      nack.put("error", status.lastNack().error());
      nack.put("at", Rows.text(status.lastNack().at()));
      statusJson.put("lastNack", nack);
    }
    statusJson.put("refusedVersions", new TreeMap<>(status.refusedVersions()));
    statusJson.put("reportedDefaults", status.reportedDefaults() == null ? null : json.parseStored(status.reportedDefaults()));
    if (status.lastAuthFailure() == null) {
      statusJson.put("lastAuthFailure", null);
    } else {
      Map<String, Object> failure = new LinkedHashMap<>();
      failure.put("reason", status.lastAuthFailure().reason());
      failure.put("at", Rows.text(status.lastAuthFailure().at()));
      statusJson.put("lastAuthFailure", failure);
    }
    reply.put("status", statusJson);
    return reply;
  }
}
