package io.spillway.central.policy;

import com.fasterxml.jackson.databind.JsonNode;
import io.spillway.policy.AccessLogJson;
import io.spillway.policy.DeploymentDefaults;
import io.spillway.policy.ParseResult;
import io.spillway.policy.PolicyJson;
import io.spillway.policy.Problem;
import io.spillway.policy.RateLimitJson;
import java.util.ArrayList;
import java.util.EnumMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * A PATCH of an edge's policy sections (SPEC §6, seed 001), parsed and validated, and its merge
 * rules:
 *
 * <ul>
 *   <li>a section present with an object replaces that section entirely; with {@code null} deletes
 *       it; a section absent from the body stays as it is;
 *   <li>{@code overload} is read and validated by the shared policy module (unknown fields dropped,
 *       every problem with its field path), cross-field rules against the edge's deployment
 *       defaults; {@code rateLimits} likewise, along the module's {@code RateLimitField} table (problem
 *       paths such as {@code rateLimits.limits[1].rate}), and {@code accessLog} along its
 *       {@code AccessLogField} table (paths such as {@code accessLog.filters.statusCode.value});
 *   <li>{@code expectedRevisions} names sections whose revision must still be the given number,
 *       else the whole PATCH is a conflict;
 *   <li>{@code dryRun: true} asks for the would-be result without saving;
 *   <li>any other top-level key is ignored;
 *   <li>replacing a section with an equal value, or deleting an unset one, changes nothing.
 * </ul>
 *
 * @param changes per section: the new value, or empty to delete
 * @param expectedRevisions per section: the revision the caller last saw
 * @param dryRun whether to validate only
 */
public record PolicyPatch(Map<Section, Optional<JsonNode>> changes, Map<Section, Long> expectedRevisions, boolean dryRun) {

  /** Copies the maps. */
  public PolicyPatch {
    changes = Map.copyOf(changes);
    expectedRevisions = Map.copyOf(expectedRevisions);
  }

  /** A PATCH body that breaks a rule; carries the first problem found. */
  public static final class InvalidPatchException extends Exception {

    private final transient Problem problem;

    InvalidPatchException(Problem problem) {
      super(problem.message(), null, false, false);
      this.problem = problem;
    }

    /** The first problem, its field path relative to the body (e.g. {@code overload.inbound.startShare}). */
    public Problem problem() {
      return problem;
    }
  }

  /**
   * Parses and validates a PATCH body against the built-in deployment defaults.
   *
   * @throws InvalidPatchException with the first problem found
   */
  public static PolicyPatch parse(JsonNode body) throws InvalidPatchException {
    return parse(body, DeploymentDefaults.builtIn());
  }

  /**
   * Parses and validates a PATCH body.
   *
   * @param defaults the edge's deployment baseline, which fields the overload policy leaves out
   *     take when cross-field rules are checked
   * @throws InvalidPatchException with the first problem found
   */
  public static PolicyPatch parse(JsonNode body, DeploymentDefaults defaults) throws InvalidPatchException {
    if (body == null || !body.isObject()) {
      throw new InvalidPatchException(new Problem("", "the request body must be a JSON object"));
    }
    Map<Section, Optional<JsonNode>> changes = new EnumMap<>(Section.class);
    for (Section section : Section.values()) {
      JsonNode node = body.get(section.jsonName());
      if (node == null) {
        continue;
      }
      if (node.isNull()) {
        changes.put(section, Optional.empty());
      } else if (section == Section.OVERLOAD) {
        changes.put(section, Optional.of(overload(node, defaults)));
      } else if (section == Section.RATE_LIMITS) {
        changes.put(section, Optional.of(rateLimits(node)));
      } else if (section == Section.ACCESS_LOG) {
        changes.put(section, Optional.of(accessLog(node)));
      } else if (node.isObject()) {
        changes.put(section, Optional.of(node.deepCopy()));
      } else {
        throw new InvalidPatchException(new Problem(section.jsonName(), section.jsonName() + " must be an object or null"));
      }
    }
    Map<Section, Long> expected = new EnumMap<>(Section.class);
    JsonNode revisions = body.get("expectedRevisions");
    if (revisions != null && !revisions.isNull()) {
      if (!revisions.isObject()) {
        throw new InvalidPatchException(new Problem("expectedRevisions", "expectedRevisions must be an object of section revisions"));
      }
      for (Section section : Section.values()) {
        JsonNode revision = revisions.get(section.jsonName());
        if (revision == null || revision.isNull()) {
          continue;
        }
        if (!revision.isIntegralNumber() || !revision.canConvertToLong() || revision.asLong() < 0) {
          throw new InvalidPatchException(new Problem("expectedRevisions." + section.jsonName(),
              "expectedRevisions." + section.jsonName() + " must be a whole number from 0"));
        }
        expected.put(section, revision.asLong());
      }
    }
    boolean dryRun = false;
    JsonNode dry = body.get("dryRun");
    if (dry != null && !dry.isNull()) {
      if (!dry.isBoolean()) {
        throw new InvalidPatchException(new Problem("dryRun", "dryRun must be true or false"));
      }
      dryRun = dry.asBoolean();
    }
    return new PolicyPatch(changes, expected, dryRun);
  }

  private static JsonNode overload(JsonNode node, DeploymentDefaults defaults) throws InvalidPatchException {
    ParseResult result = PolicyJson.parse(node, defaults);
    Optional<Problem> first = result.firstProblem();
    if (first.isPresent()) {
      Problem problem = first.get();
      String field = problem.field().isEmpty() ? "overload" : "overload." + problem.field();
      throw new InvalidPatchException(new Problem(field, problem.message()));
    }
    return PolicyJson.toTree(result.policy());
  }

  private static JsonNode accessLog(JsonNode node) throws InvalidPatchException {
    AccessLogJson.Result result = AccessLogJson.parse(node);
    Optional<Problem> first = result.firstProblem();
    if (first.isPresent()) {
      throw new InvalidPatchException(first.get()); // its path already starts with accessLog
    }
    return AccessLogJson.toTree(result.policy());
  }

  private static JsonNode rateLimits(JsonNode node) throws InvalidPatchException {
    RateLimitJson.Result result = RateLimitJson.parse(node);
    Optional<Problem> first = result.firstProblem();
    if (first.isPresent()) {
      throw new InvalidPatchException(first.get()); // its path already starts with rateLimits
    }
    return RateLimitJson.toTree(result.policy());
  }

  /**
   * One section that changed.
   *
   * @param section which
   * @param before the value before, or null
   * @param after the value after, or null when deleted
   * @param revision the section's new revision
   */
  public record Change(Section section, JsonNode before, JsonNode after, long revision) {}

  /** What applying a PATCH to a state gives. */
  public sealed interface Outcome {}

  /**
   * A section's revision is not the expected one; nothing applies.
   *
   * @param section the first such section
   * @param expected the revision the caller sent
   * @param actual the revision now
   */
  public record Conflict(Section section, long expected, long actual) implements Outcome {}

  /**
   * The PATCH applies.
   *
   * @param after the state after it
   * @param changes the sections that actually changed, in section order
   */
  public record Applied(PolicyState after, List<Change> changes) implements Outcome {

    /** Copies the list. */
    public Applied {
      changes = List.copyOf(changes);
    }
  }

  /** Applies this PATCH to a state, without side effects. */
  public Outcome apply(PolicyState current) {
    for (Section section : Section.values()) {
      Long expected = expectedRevisions.get(section);
      if (expected != null && expected != current.get(section).revision()) {
        return new Conflict(section, expected, current.get(section).revision());
      }
    }
    PolicyState state = current;
    List<Change> applied = new ArrayList<>();
    for (Section section : Section.values()) {
      Optional<JsonNode> change = changes.get(section);
      if (change == null) {
        continue;
      }
      PolicyState.Entry before = current.get(section);
      JsonNode after = change.orElse(null);
      boolean same = before.value() == null ? after == null : before.value().equals(after);
      if (same) {
        continue;
      }
      long revision = before.revision() + 1;
      state = state.with(section, new PolicyState.Entry(after, revision));
      applied.add(new Change(section, before.value(), after, revision));
    }
    return new Applied(state, applied);
  }
}
