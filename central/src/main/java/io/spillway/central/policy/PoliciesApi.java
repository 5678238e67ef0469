package io.spillway.central.policy;

import com.fasterxml.jackson.databind.JsonNode;
import io.javalin.http.HandlerType;
import io.spillway.central.api.ApiException;
import io.spillway.central.api.Call;
import io.spillway.central.api.Json;
import io.spillway.central.api.Reply;
import io.spillway.central.api.Router;
import io.spillway.central.auth.Permission;
import io.spillway.central.xds.ChangeBus;
import io.spillway.policy.DeploymentDefaults;
import io.spillway.policy.Problem;
import java.time.Instant;
import java.time.format.DateTimeParseException;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.regex.Pattern;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * {@code GET|PATCH /configuration/edges/policies?edgeId=<id>} and {@code GET /configuration/audit}.
 *
 * <p>A PATCH whose body is refused (malformed JSON, too deep, a value out of range, a broken
 * cross-field rule, a wrong type) gets 400 with an empty body (SPEC §6): the first problem found is
 * logged at WARN with the edge id and the field path, in the shared policy module's words.
 * Cross-field rules are checked against the deployment defaults the edge reported, so central
 * refuses what that edge would refuse.
 */
public final class PoliciesApi {

  private static final Logger log = LoggerFactory.getLogger(PoliciesApi.class);
  private static final Pattern LOGGABLE_ID = Pattern.compile("[A-Za-z0-9._:-]{1,128}");
  private static final int DEFAULT_AUDIT_LIMIT = 100;
  private static final int MAX_AUDIT_LIMIT = 1000;

  private final PolicyStore policies;
  private final AuditStore audit;
  private final Json json;
  private final ChangeBus changes;

  /** The API, without an xDS server to tell of changes. */
  public PoliciesApi(PolicyStore policies, AuditStore audit, Json json) {
    this(policies, audit, json, ChangeBus.none());
  }

  /**
   * The API.
   *
   * @param changes told of every committed change, after the commit, so the xDS server pushes it
   */
  public PoliciesApi(PolicyStore policies, AuditStore audit, Json json, ChangeBus changes) {
    this.policies = Objects.requireNonNull(policies, "policies");
    this.audit = Objects.requireNonNull(audit, "audit");
    this.json = Objects.requireNonNull(json, "json");
    this.changes = Objects.requireNonNull(changes, "changes");
  }

  /** Adds the routes; before {@code /configuration/edges/{id}}. */
  public void register(Router router) {
    router.route(HandlerType.GET, "/configuration/edges/policies", Permission.EDGES_READ, this::get);
    router.route(HandlerType.PATCH, "/configuration/edges/policies", Permission.EDGES_MANAGE, this::patch);
    router.route(HandlerType.GET, "/configuration/audit", Permission.EDGES_READ, this::audit);
  }

  private Reply get(Call call) {
    String edgeId = edgeId(call);
    PolicyState state = policies.read(edgeId).orElseThrow(() -> ApiException.of(404, "no edge " + loggable(edgeId)));
    return Reply.ok(stateJson(edgeId, state, null));
  }

  private Reply patch(Call call) {
    String edgeId = edgeId(call);
    JsonNode body;
    try {
      body = call.jsonBody();
    } catch (ApiException e) {
      if (e.status() == 400) {
        throw rejected(edgeId, new Problem("", e.getMessage()));
      }
      throw e;
    }
    DeploymentDefaults defaults = policies.deploymentDefaults(edgeId)
        .orElseThrow(() -> ApiException.of(404, "no edge " + loggable(edgeId)));
    PolicyPatch patch;
    try {
      patch = PolicyPatch.parse(body, defaults);
    } catch (PolicyPatch.InvalidPatchException e) {
      throw rejected(edgeId, e.problem());
    }
    PolicyStore.Result result = policies.patch(edgeId, patch, call.principal().operator());
    if (result instanceof PolicyStore.UnknownEdge) {
      throw ApiException.of(404, "no edge " + loggable(edgeId));
    }
    PolicyPatch.Outcome outcome = ((PolicyStore.Done) result).outcome();
    if (outcome instanceof PolicyPatch.Conflict conflict) {
      throw ApiException.of(409, "section " + conflict.section().jsonName() + " of edge " + loggable(edgeId)
          + " is at revision " + conflict.actual() + ", not the expected " + conflict.expected());
    }
    PolicyPatch.Applied applied = (PolicyPatch.Applied) outcome;
    if (!patch.dryRun() && !applied.changes().isEmpty()) {
      log.info("policy of edge {} changed by {}: {}", edgeId, call.principal().operator(),
          applied.changes().stream().map(c -> c.section().jsonName() + (c.after() == null ? " deleted" : " set") + " at revision " + c.revision()).toList());
      changes.publish(edgeId); // committed: push it to the edge now
    }
    return Reply.ok(stateJson(edgeId, applied.after(), patch.dryRun()));
  }

  private ApiException rejected(String edgeId, Problem problem) {
    log.warn("rejected policy PATCH for edge {}: field {}: {}", loggable(edgeId),
        problem.field().isEmpty() ? "(body)" : problem.field(), oneLine(problem.message()));
    return ApiException.emptyBody(400);
  }

  /** A message quoting request text (a JSON parse error) kept to one log line. */
  private static String oneLine(String message) {
    return message.replaceAll("[\\r\\n\\t\\p{Cntrl}]+", " ");
  }

  private Reply audit(Call call) {
    String section = call.queryParam("section");
    if (section != null && Section.fromJsonName(section).isEmpty() && !section.startsWith("resources/")) {
      throw ApiException.of(400, "section must be overload, accessLog, rateLimits or resources/<type>/<name>");
    }
    Instant since = null;
    if (call.queryParam("since") != null) {
      try {
        since = Instant.parse(call.queryParam("since"));
      } catch (DateTimeParseException e) {
        throw ApiException.of(400, "since must be an ISO-8601 instant such as 2030-01-01T00:00:00Z");
      }
    }
    int limit = DEFAULT_AUDIT_LIMIT;
    if (call.queryParam("limit") != null) {
      try {
        limit = Integer.parseInt(call.queryParam("limit"));
      } catch (NumberFormatException e) {
        limit = -1;
      }
      if (limit < 1 || limit > MAX_AUDIT_LIMIT) {
        throw ApiException.of(400, "limit must be from 1 to " + MAX_AUDIT_LIMIT);
      }
    }
    List<AuditStore.Entry> entries = audit.query(new AuditStore.Filter(call.queryParam("edgeId"), section,
        call.queryParam("operator"), since, limit));
    return Reply.ok(Map.of("entries", entries.stream().map(this::auditJson).toList()));
  }

  private static String edgeId(Call call) {
    String edgeId = call.queryParam("edgeId");
    if (edgeId == null || edgeId.isBlank()) {
      throw ApiException.of(400, "the edgeId query parameter is required");
    }
    return edgeId;
  }

  /** The id as logs may show it: ids outside the registry's alphabet could forge log lines. */
  private static String loggable(String edgeId) {
    return LOGGABLE_ID.matcher(edgeId).matches() ? edgeId : "(invalid id)";
  }

  private Map<String, Object> stateJson(String edgeId, PolicyState state, Boolean dryRun) {
    Map<String, Object> reply = new LinkedHashMap<>();
    reply.put("edgeId", edgeId);
    Map<String, Object> revisions = new LinkedHashMap<>();
    for (Section section : Section.values()) {
      reply.put(section.jsonName(), state.get(section).value());
      revisions.put(section.jsonName(), state.get(section).revision());
    }
    reply.put("revisions", revisions);
    if (dryRun != null) {
      reply.put("dryRun", dryRun);
    }
    return reply;
  }

  private Map<String, Object> auditJson(AuditStore.Entry entry) {
    Map<String, Object> reply = new LinkedHashMap<>();
    reply.put("id", entry.id());
    reply.put("at", entry.at().toString());
    reply.put("operator", entry.operator());
    reply.put("edgeId", entry.edgeId());
    reply.put("section", entry.section());
    reply.put("before", parse(entry.before()));
    reply.put("after", parse(entry.after()));
    reply.put("revision", entry.revision());
    if (entry.selector() != null) {
      reply.put("selector", entry.selector());
    }
    return reply;
  }

  private JsonNode parse(String text) {
    return text == null ? null : json.parseStored(text);
  }
}
