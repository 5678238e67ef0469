package io.spillway.central.resources;

import io.spillway.central.api.ApiException;
import io.spillway.central.api.Call;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.regex.Pattern;

/** What the resource and endpoint APIs read from a call and how they answer a store result. */
final class ResourceCalls {

  private static final Pattern NAME = Pattern.compile("[A-Za-z0-9][A-Za-z0-9._:-]{0,254}");
  private static final Pattern LOGGABLE = Pattern.compile("[A-Za-z0-9._:=!,/ -]{0,256}");

  /** The types' path names for messages: "clusters, endpoints, ... or runtimes". */
  private static final String TYPE_NAMES = typeNames();

  private ResourceCalls() {}

  private static String typeNames() {
    java.util.List<String> names = java.util.Arrays.stream(ResourceType.values()).map(ResourceType::jsonName).toList();
    return String.join(", ", names.subList(0, names.size() - 1)) + " or " + names.getLast();
  }

  /**
   * The target: exactly one of {@code edgeId} and {@code selector} (an empty selector is every edge).
   *
   * @throws ApiException 400 when both, neither, or a bad selector
   */
  static Target target(Call call) {
    String edgeId = call.queryParam("edgeId");
    String selector = call.queryParam("selector");
    if ((edgeId == null) == (selector == null)) {
      throw ApiException.of(400, "give exactly one of the edgeId and selector query parameters");
    }
    if (edgeId != null) {
      if (edgeId.isBlank()) {
        throw ApiException.of(400, "the edgeId query parameter is empty");
      }
      return Target.edge(edgeId);
    }
    try {
      return Target.selector(selector);
    } catch (IllegalArgumentException e) {
      throw ApiException.of(400, e.getMessage());
    }
  }

  /** The {@code {type}} path parameter; 404 for a type that does not exist. */
  static ResourceType type(Call call) {
    String type = call.pathParam("type");
    return ResourceType.fromJsonName(type).orElseThrow(() ->
        ApiException.of(404, "no resource type '" + loggable(type) + "': use " + TYPE_NAMES));
  }

  /** A resource name from a path parameter; 400 unless 1 to 255 letters, digits or . _ : - (starting with a letter or digit). */
  static String name(Call call, String parameter) {
    String name = call.pathParam(parameter);
    if (!NAME.matcher(name).matches()) {
      throw ApiException.of(400, "a resource name is 1 to 255 letters, digits or . _ : -, starting with a letter or digit");
    }
    return name;
  }

  /** {@code expectedRevision}, or null when absent; 400 unless a whole number ≥ 0. */
  static Long expectedRevision(Call call) {
    String text = call.queryParam("expectedRevision");
    if (text == null) {
      return null;
    }
    try {
      long revision = Long.parseLong(text);
      if (revision >= 0) {
        return revision;
      }
    } catch (NumberFormatException e) {
      // answered below
    }
    throw ApiException.of(400, "expectedRevision must be a whole number, 0 for a resource that must not exist yet");
  }

  /** {@code dryRun}: absent or {@code false} = no, {@code true} = yes; 400 otherwise. */
  static boolean dryRun(Call call) {
    String text = call.queryParam("dryRun");
    if (text == null || text.equals("false")) {
      return false;
    }
    if (text.equals("true")) {
      return true;
    }
    throw ApiException.of(400, "dryRun must be true or false");
  }

  /** The store's refusals as API errors; the done result as is. */
  static ResourceStore.Done done(ResourceStore.Result result, ResourceType type, Target target, String name,
      Long expectedRevision) {
    return switch (result) {
      case ResourceStore.UnknownEdge u -> throw ApiException.of(404, "no edge " + target.edgeId());
      case ResourceStore.Conflict c -> throw ApiException.of(409, type.jsonName() + "/" + name + " of " + target
          + " is at revision " + c.actual() + ", not the expected " + expectedRevision);
      case ResourceStore.Invalid i -> throw ApiException.of(400, i.problem());
      case ResourceStore.Done d -> d;
    };
  }

  /** One resource as the API shows it. */
  static Map<String, Object> json(ResourceCodec codec, StoredResource row) {
    Map<String, Object> reply = new LinkedHashMap<>();
    reply.put("type", row.type().jsonName());
    reply.put("name", row.name());
    if (row.target().isSelector()) {
      reply.put("selector", row.target().selector());
    } else {
      reply.put("edgeId", row.target().edgeId());
    }
    reply.put("resource", row.json() == null ? null : codec.tree(row.json()));
    reply.put("revision", row.revision());
    reply.put("updatedAt", row.updatedAt() == null ? null : row.updatedAt().toString());
    reply.put("updatedBy", row.updatedBy());
    return reply;
  }

  /** Text as logs may show it: anything outside a safe alphabet could forge log lines. */
  static String loggable(String text) {
    return text != null && LOGGABLE.matcher(text).matches() ? text : "(not shown)";
  }
}
