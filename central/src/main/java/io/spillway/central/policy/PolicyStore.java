package io.spillway.central.policy;

import com.fasterxml.jackson.core.type.TypeReference;
import com.fasterxml.jackson.databind.JsonNode;
import io.spillway.central.api.Json;
import io.spillway.central.store.Database;
import io.spillway.central.store.Rows;
import io.spillway.policy.DeploymentDefaults;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Clock;
import java.time.Instant;
import java.util.EnumMap;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Policy sections and their audit rows in the database. A PATCH runs in one transaction that
 * first locks the edge's registry row ({@code SELECT … FOR UPDATE}, on H2 and PostgreSQL alike),
 * so concurrent PATCHes of one edge run one after the other: the second sees the first's
 * revisions, and with the same {@code expectedRevisions} it is a conflict. The section rows and
 * the audit rows commit together or not at all.
 */
public final class PolicyStore {

  private static final Logger log = LoggerFactory.getLogger(PolicyStore.class);
  private static final TypeReference<Map<String, String>> VARIABLES = new TypeReference<>() {};

  private final Database database;
  private final Json json;
  private final Clock clock;

  /** A store on the database. */
  public PolicyStore(Database database, Json json, Clock clock) {
    this.database = Objects.requireNonNull(database, "database");
    this.json = Objects.requireNonNull(json, "json");
    this.clock = Objects.requireNonNull(clock, "clock");
  }

  /** What a PATCH did. */
  public sealed interface Result {}

  /** The edge is not registered. */
  public record UnknownEdge() implements Result {}

  /**
   * The PATCH was applied (or, for a dry run, would be).
   *
   * @param outcome the applied outcome or the conflict
   */
  public record Done(PolicyPatch.Outcome outcome) implements Result {}

  /**
   * The deployment baseline an edge reported (its {@code HTTP_ADMISSION_*} /
   * {@code HTTP_CLIENT_GUARD_*} variables), which the overload policy is validated against; the
   * built-in defaults when it reported none or a baseline that no longer reads (an
   * {@code InvalidDeploymentDefaultsException}, logged).
   *
   * @return empty when the edge is not registered
   */
  public Optional<DeploymentDefaults> deploymentDefaults(String edgeId) {
    return database.inTransaction(c -> {
      try (PreparedStatement s = c.prepareStatement("SELECT reported_defaults FROM edges WHERE id = ?")) {
        s.setString(1, edgeId);
        try (ResultSet r = s.executeQuery()) {
          if (!r.next()) {
            return Optional.empty();
          }
          return Optional.of(readDefaults(r.getString(1)));
        }
      }
    });
  }

  private DeploymentDefaults readDefaults(String stored) {
    if (stored == null) {
      return DeploymentDefaults.builtIn();
    }
    try {
      Map<String, String> variables = json.mapper().convertValue(json.parseStored(stored), VARIABLES);
      return variables == null ? DeploymentDefaults.builtIn() : DeploymentDefaults.fromEnvironment(variables);
    } catch (IllegalArgumentException e) { // also InvalidDeploymentDefaultsException
      log.warn("ignoring unreadable reported deployment defaults: {}", e.getMessage());
      return DeploymentDefaults.builtIn();
    }
  }

  /** The sections of a registered edge; empty when the edge is not registered. */
  public Optional<PolicyState> read(String edgeId) {
    return database.inTransaction(c -> {
      if (!edgeExists(c, edgeId, false)) {
        return Optional.empty();
      }
      return Optional.of(load(c, edgeId));
    });
  }

  /**
   * The sections of several edges, read in one transaction; edges that are not registered are
   * left out. For a push that reaches a fleet.
   */
  public Map<String, PolicyState> read(java.util.Collection<String> edgeIds) {
    return database.inTransaction(c -> {
      java.util.Set<String> wanted = new java.util.HashSet<>(edgeIds);
      Map<String, Map<Section, PolicyState.Entry>> sections = new java.util.HashMap<>();
      try (PreparedStatement s = c.prepareStatement("SELECT id FROM edges"); ResultSet r = s.executeQuery()) {
        while (r.next()) {
          if (wanted.contains(r.getString(1))) {
            sections.put(r.getString(1), new EnumMap<>(Section.class));
          }
        }
      }
      try (PreparedStatement s = c.prepareStatement("SELECT edge_id, section, body, revision FROM edge_policies");
          ResultSet r = s.executeQuery()) {
        while (r.next()) {
          Map<Section, PolicyState.Entry> edge = sections.get(r.getString("edge_id"));
          Optional<Section> section = Section.fromJsonName(r.getString("section"));
          if (edge != null && section.isPresent()) {
            String body = r.getString("body");
            edge.put(section.get(), new PolicyState.Entry(body == null ? null : json.parseStored(body), r.getLong("revision")));
          }
        }
      }
      Map<String, PolicyState> states = new java.util.LinkedHashMap<>();
      sections.forEach((id, bySection) -> states.put(id, new PolicyState(bySection)));
      return states;
    });
  }

  /**
   * Applies a PATCH atomically and audits every changed section; a dry run or a conflict writes
   * nothing.
   *
   * @param operator who sends it, for the audit rows
   */
  public Result patch(String edgeId, PolicyPatch patch, String operator) {
    return database.inTransaction(c -> {
      if (!edgeExists(c, edgeId, true)) {
        return new UnknownEdge();
      }
      PolicyPatch.Outcome outcome = patch.apply(load(c, edgeId));
      if (patch.dryRun() || !(outcome instanceof PolicyPatch.Applied applied)) {
        return new Done(outcome);
      }
      Instant now = clock.instant();
      for (PolicyPatch.Change change : applied.changes()) {
        save(c, edgeId, change, operator, now);
        audit(c, edgeId, change, operator, now);
      }
      return new Done(outcome);
    });
  }

  private static boolean edgeExists(Connection c, String edgeId, boolean lock) throws SQLException {
    try (PreparedStatement s = c.prepareStatement("SELECT id FROM edges WHERE id = ?" + (lock ? " FOR UPDATE" : ""))) {
      s.setString(1, edgeId);
      try (ResultSet r = s.executeQuery()) {
        return r.next();
      }
    }
  }

  private PolicyState load(Connection c, String edgeId) throws SQLException {
    Map<Section, PolicyState.Entry> sections = new EnumMap<>(Section.class);
    try (PreparedStatement s = c.prepareStatement("SELECT section, body, revision FROM edge_policies WHERE edge_id = ?")) {
      s.setString(1, edgeId);
      try (ResultSet r = s.executeQuery()) {
        while (r.next()) {
          Optional<Section> section = Section.fromJsonName(r.getString("section"));
          if (section.isPresent()) {
            String body = r.getString("body");
            sections.put(section.get(), new PolicyState.Entry(body == null ? null : json.parseStored(body), r.getLong("revision")));
          }
        }
      }
    }
    return new PolicyState(sections);
  }

  private void save(Connection c, String edgeId, PolicyPatch.Change change, String operator, Instant now) throws SQLException {
    String body = text(change.after());
    int updated;
    try (PreparedStatement s = c.prepareStatement(
        "UPDATE edge_policies SET body = ?, revision = ?, updated_at = ?, updated_by = ? WHERE edge_id = ? AND section = ? AND revision = ?")) {
      s.setString(1, body);
      s.setLong(2, change.revision());
      Rows.setInstant(s, 3, now);
      s.setString(4, operator);
      s.setString(5, edgeId);
      s.setString(6, change.section().jsonName());
      s.setLong(7, change.revision() - 1);
      updated = s.executeUpdate();
    }
    if (updated == 1) {
      return;
    }
    if (change.revision() != 1) {
      throw new IllegalStateException("policy section " + change.section().jsonName() + " of edge changed under the edge lock");
    }
    try (PreparedStatement s = c.prepareStatement(
        "INSERT INTO edge_policies (edge_id, section, body, revision, updated_at, updated_by) VALUES (?, ?, ?, ?, ?, ?)")) {
      s.setString(1, edgeId);
      s.setString(2, change.section().jsonName());
      s.setString(3, body);
      s.setLong(4, change.revision());
      Rows.setInstant(s, 5, now);
      s.setString(6, operator);
      s.executeUpdate();
    }
  }

  private void audit(Connection c, String edgeId, PolicyPatch.Change change, String operator, Instant now) throws SQLException {
    try (PreparedStatement s = c.prepareStatement(
        "INSERT INTO audit (at, operator_name, edge_id, section, before_json, after_json, revision) VALUES (?, ?, ?, ?, ?, ?, ?)")) {
      Rows.setInstant(s, 1, now);
      s.setString(2, operator);
      s.setString(3, edgeId);
      s.setString(4, change.section().jsonName());
      s.setString(5, text(change.before()));
      s.setString(6, text(change.after()));
      s.setLong(7, change.revision());
      s.executeUpdate();
    }
  }

  private String text(JsonNode node) {
    return node == null ? null : json.write(node);
  }
}
