package io.spillway.central.resources;

import com.google.protobuf.Message;
import io.javalin.http.HandlerType;
import io.spillway.central.api.ApiException;
import io.spillway.central.api.Call;
import io.spillway.central.api.Reply;
import io.spillway.central.api.Router;
import io.spillway.central.auth.Permission;
import io.spillway.edge.config.BootstrapLoader;
import io.spillway.edge.config.ConfigException;
import java.nio.ByteBuffer;
import java.nio.charset.CharacterCodingException;
import java.nio.charset.CodingErrorAction;
import java.nio.charset.StandardCharsets;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * {@code /configuration/resources}: Envoy v3 clusters, endpoints, listeners, routes and runtime
 * layers (RTDS) for one edge
 * ({@code ?edgeId=}) or for every edge a label selector matches ({@code ?selector=}).
 *
 * <ul>
 *   <li>{@code GET /configuration/resources?edgeId=} — what that edge receives (its own resources
 *       plus its selectors', its own winning on a name clash) with a version per type;
 *       {@code ?selector=} — what is assigned to exactly that selector.
 *   <li>{@code GET|PUT|DELETE /configuration/resources/{type}/{name}} — one resource; PUT takes
 *       the resource as JSON or YAML and stores canonical JSON. {@code expectedRevision} → 409,
 *       {@code dryRun=true} validates and answers without saving.
 * </ul>
 *
 * <p>Unlike the policy PATCH (400 with no body, SPEC §6), a refused resource gets 400 with
 * {@code {"error": "<the edge translator's message>"}}, which names the resource and the field —
 * what an operator needs to fix an Envoy resource.
 */
public final class ResourcesApi {

  private static final Logger log = LoggerFactory.getLogger(ResourcesApi.class);
  /** The media types a resource may be sent as. */
  static final Set<String> MEDIA_TYPES = Set.of("application/json", "application/yaml", "application/x-yaml", "text/yaml");

  private final ResourceStore store;
  private final ResourceCodec codec;

  /** The API. */
  public ResourcesApi(ResourceStore store) {
    this.store = Objects.requireNonNull(store, "store");
    this.codec = store.codec();
  }

  /** Adds the routes. */
  public void register(Router router) {
    router.route(HandlerType.GET, "/configuration/resources", Permission.EDGES_READ, this::list);
    router.route(HandlerType.GET, "/configuration/resources/{type}/{name}", Permission.EDGES_READ, this::get);
    router.route(HandlerType.PUT, "/configuration/resources/{type}/{name}", Permission.EDGES_MANAGE, this::put);
    router.route(HandlerType.DELETE, "/configuration/resources/{type}/{name}", Permission.EDGES_MANAGE, this::delete);
  }

  private Reply list(Call call) {
    Target target = ResourceCalls.target(call);
    Map<String, Object> reply = new LinkedHashMap<>();
    if (target.isSelector()) {
      List<StoredResource> rows = store.assigned(target).orElseThrow();
      reply.put("selector", target.selector());
      for (ResourceType type : ResourceType.values()) {
        reply.put(type.jsonName(), rows.stream().filter(r -> r.type() == type).map(r -> ResourceCalls.json(codec, r)).toList());
      }
      return Reply.ok(reply);
    }
    Map<ResourceType, Map<String, StoredResource>> winners = store.winners(target.edgeId())
        .orElseThrow(() -> ApiException.of(404, "no edge " + target.edgeId()));
    reply.put("edgeId", target.edgeId());
    Map<String, Object> versions = new LinkedHashMap<>();
    ResourceStore.versions(winners).forEach((type, version) -> versions.put(type.jsonName(), version));
    reply.put("versions", versions);
    for (ResourceType type : ResourceType.values()) {
      reply.put(type.jsonName(), winners.get(type).values().stream().map(r -> ResourceCalls.json(codec, r)).toList());
    }
    return Reply.ok(reply);
  }

  private Reply get(Call call) {
    ResourceType type = ResourceCalls.type(call);
    String name = ResourceCalls.name(call, "name");
    Target target = ResourceCalls.target(call);
    ResourceStore.Lookup lookup = store.get(type, target, name);
    if (lookup.unknownEdge()) {
      throw ApiException.of(404, "no edge " + target.edgeId());
    }
    if (lookup.resource() == null) {
      throw ApiException.of(404, "no " + type.jsonName() + "/" + name + " for " + target);
    }
    return Reply.ok(ResourceCalls.json(codec, lookup.resource()));
  }

  private Reply put(Call call) {
    ResourceType type = ResourceCalls.type(call);
    String name = ResourceCalls.name(call, "name");
    Target target = ResourceCalls.target(call);
    Long expected = ResourceCalls.expectedRevision(call);
    boolean dryRun = ResourceCalls.dryRun(call);
    Call.Body body = call.body(MEDIA_TYPES);
    Message resource;
    try {
      resource = codec.parse(text(body.bytes()), body.mediaType().equals("application/json")
          ? BootstrapLoader.Format.JSON : BootstrapLoader.Format.YAML, type);
    } catch (ConfigException e) {
      // Named like the translator's messages: the resource first, then the field.
      String resourceName = singular(type) + " \"" + name + "\"";
      throw ApiException.of(400, e.path().isEmpty() ? resourceName + ": " + e.rule()
          : resourceName + "." + e.path() + ": " + e.rule());
    }
    String bodyName = type.nameOf(resource);
    if (!bodyName.isEmpty() && !bodyName.equals(name)) {
      throw ApiException.of(400, singular(type) + " \"" + bodyName + "\"." + type.nameField()
          + ": must be the name in the path, \"" + name + "\"");
    }
    ResourceStore.Done done = ResourceCalls.done(
        store.change(type, target, name, current -> resource, expected, dryRun, call.principal().operator()),
        type, target, name, expected);
    if (done.changed() && !dryRun) {
      log.info("{}/{} of {} set by {} at revision {}", type.jsonName(), name, ResourceCalls.loggable(target.toString()),
          call.principal().operator(), done.after().revision());
    }
    Map<String, Object> reply = ResourceCalls.json(codec, done.after());
    reply.put("dryRun", dryRun);
    return done.before() == null && done.changed() && !dryRun ? Reply.created(reply) : Reply.ok(reply);
  }

  private Reply delete(Call call) {
    ResourceType type = ResourceCalls.type(call);
    String name = ResourceCalls.name(call, "name");
    Target target = ResourceCalls.target(call);
    Long expected = ResourceCalls.expectedRevision(call);
    boolean dryRun = ResourceCalls.dryRun(call);
    ResourceStore.Done done = ResourceCalls.done(store.change(type, target, name, current -> {
      if (current == null) {
        throw ApiException.of(404, "no " + type.jsonName() + "/" + name + " for " + target);
      }
      return null;
    }, expected, dryRun, call.principal().operator()), type, target, name, expected);
    if (!dryRun) {
      log.info("{}/{} of {} deleted by {} at revision {}", type.jsonName(), name, ResourceCalls.loggable(target.toString()),
          call.principal().operator(), done.after().revision());
    }
    Map<String, Object> reply = ResourceCalls.json(codec, done.after());
    reply.put("dryRun", dryRun);
    return Reply.ok(reply);
  }

  /** The translator's word for one resource of the type, as its messages start. */
  static String singular(ResourceType type) {
    return switch (type) {
      case CLUSTERS -> "cluster";
      case ENDPOINTS -> "cluster_load_assignment";
      case LISTENERS -> "listener";
      case ROUTES -> "route_configuration";
      case RUNTIMES -> "runtime";
    };
  }

  private static String text(byte[] bytes) {
    try {
      return StandardCharsets.UTF_8.newDecoder().onMalformedInput(CodingErrorAction.REPORT)
          .onUnmappableCharacter(CodingErrorAction.REPORT).decode(ByteBuffer.wrap(bytes)).toString();
    } catch (CharacterCodingException e) {
      throw ApiException.of(400, "the request body is not UTF-8");
    }
  }
}
