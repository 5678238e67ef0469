package io.spillway.central.edges;

import com.fasterxml.jackson.core.type.TypeReference;
import io.spillway.central.api.Json;
import io.spillway.central.store.Database;
import io.spillway.central.store.Rows;
import io.spillway.policy.DeploymentDefaults;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Clock;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;

/** The edge registry in the database. The credential is stored as its SHA-256 only. */
public final class EdgeStore {

  /** A JSON object of strings: labels, versions by type URL. */
  private static final TypeReference<Map<String, String>> STRING_MAP = new TypeReference<>() {};

  /**
   * A registered edge.
   *
   * @param id the edge's node id
   * @param labels its labels
   * @param createdAt when it was registered
   * @param updatedAt when its labels last changed
   * @param status what the xDS stream last reported
   */
  public record Edge(String id, Map<String, String> labels, Instant createdAt, Instant updatedAt, Status status) {}

  /**
   * An edge's status as the xDS server records it.
   *
   * @param connected whether a stream is open now
   * @param lastSeen the last message from the edge, or null
   * @param ackedVersions JSON object: type URL → ACKed version, or null
   * @param lastNack the last NACK, or null
   * @param reportedDefaults JSON of the deployment defaults the edge reported, or null
   * @param lastAuthFailure the last xDS stream refused for this edge (wrong credential), or null
   * @param refusedVersions type URL → the version the edge refused and has not moved past (it has
   *     ACKed no other version of that type since)
   */
  public record Status(boolean connected, Instant lastSeen, String ackedVersions, LastNack lastNack, String reportedDefaults,
      AuthFailure lastAuthFailure, Map<String, String> refusedVersions) {
    /** Copies the map. */
    public Status {
      refusedVersions = Map.copyOf(refusedVersions);
    }
  }

  /**
   * An xDS stream refused for an edge.
   *
   * @param reason why (never the presented credential)
   * @param at when
   */
  public record AuthFailure(String reason, Instant at) {}

  /**
   * The last configuration an edge refused.
   *
   * @param type the resource type URL
   * @param version the refused version
   * @param error the edge's error detail
   * @param at when
   */
  public record LastNack(String type, String version, String error, Instant at) {}

  private final Database database;
  private final Json json;
  private final Clock clock;

  /** A store on the database. */
  public EdgeStore(Database database, Json json, Clock clock) {
    this.database = Objects.requireNonNull(database, "database");
    this.json = Objects.requireNonNull(json, "json");
    this.clock = Objects.requireNonNull(clock, "clock");
  }

  /**
   * Registers an edge.
   *
   * @return the new record, or empty when the id is taken
   */
  public Optional<Edge> register(String id, Map<String, String> labels, String credentialHash) {
    Instant now = clock.instant();
    return database.inTransaction(c -> {
      try (PreparedStatement s = c.prepareStatement(
          "INSERT INTO edges (id, labels, credential_hash, created_at, updated_at) SELECT ?, ?, ?, ?, ? "
              + "WHERE NOT EXISTS (SELECT 1 FROM edges WHERE id = ?)")) {
        s.setString(1, id);
        s.setString(2, json.write(labels));
        s.setString(3, credentialHash);
        Rows.setInstant(s, 4, now);
        Rows.setInstant(s, 5, now);
        s.setString(6, id);
        if (s.executeUpdate() != 1) {
          return Optional.empty();
        }
      }
      return Optional.of(new Edge(id, Map.copyOf(labels), now, now, new Status(false, null, null, null, null, null, Map.of())));
    });
  }

  /** Every edge, by id. */
  public List<Edge> list() {
    return database.inTransaction(c -> {
      List<Edge> edges = new ArrayList<>();
      try (PreparedStatement s = c.prepareStatement("SELECT * FROM edges ORDER BY id"); ResultSet r = s.executeQuery()) {
        while (r.next()) {
          edges.add(read(r));
        }
      }
      return edges;
    });
  }

  /** One edge. */
  public Optional<Edge> get(String id) {
    return database.inTransaction(c -> {
      try (PreparedStatement s = c.prepareStatement("SELECT * FROM edges WHERE id = ?")) {
        s.setString(1, id);
        try (ResultSet r = s.executeQuery()) {
          return r.next() ? Optional.of(read(r)) : Optional.empty();
        }
      }
    });
  }

  /** Replaces an edge's labels; empty when there is no such edge. */
  public Optional<Edge> relabel(String id, Map<String, String> labels) {
    return database.inTransaction(c -> {
      try (PreparedStatement s = c.prepareStatement("UPDATE edges SET labels = ?, updated_at = ? WHERE id = ?")) {
        s.setString(1, json.write(labels));
        Rows.setInstant(s, 2, clock.instant());
        s.setString(3, id);
        if (s.executeUpdate() != 1) {
          return Optional.empty();
        }
      }
      try (PreparedStatement s = c.prepareStatement("SELECT * FROM edges WHERE id = ?")) {
        s.setString(1, id);
        try (ResultSet r = s.executeQuery()) {
          r.next();
          return Optional.of(read(r));
        }
      }
    });
  }

  /** Replaces an edge's credential hash (the old credential stops working); false when there is no such edge. */
  public boolean rotateCredential(String id, String credentialHash) {
    return database.inTransaction(c -> {
      try (PreparedStatement s = c.prepareStatement("UPDATE edges SET credential_hash = ?, updated_at = ? WHERE id = ?")) {
        s.setString(1, credentialHash);
        Rows.setInstant(s, 2, clock.instant());
        s.setString(3, id);
        return s.executeUpdate() == 1;
      }
    });
  }

  /** Deregisters an edge and drops its policies (the audit history stays); false when there was none. */
  public boolean deregister(String id) {
    return database.inTransaction(c -> {
      try (PreparedStatement s = c.prepareStatement("DELETE FROM edges WHERE id = ?")) {
        s.setString(1, id);
        return s.executeUpdate() == 1;
      }
    });
  }

  /**
   * Records the deployment defaults an edge reported (for the xDS server), stored as the edge's
   * {@code HTTP_ADMISSION_*} / {@code HTTP_CLIENT_GUARD_*} variables
   * ({@link DeploymentDefaults#environmentVariables()}), which policy validation reads back.
   *
   * @return false when there is no such edge
   */
  public boolean reportDefaults(String id, DeploymentDefaults defaults) {
    return database.inTransaction(c -> {
      try (PreparedStatement s = c.prepareStatement("UPDATE edges SET reported_defaults = ? WHERE id = ?")) {
        s.setString(1, json.write(defaults.environmentVariables()));
        s.setString(2, id);
        return s.executeUpdate() == 1;
      }
    });
  }

  /**
   * An xDS stream of the edge opened (or was authenticated): connected, seen now. The stream id
   * lets a late {@link #streamClosed} of an older stream (possibly on another replica) leave the
   * newer one's status alone.
   */
  public void streamOpened(String id, String streamId) {
    update("UPDATE edges SET connected = TRUE, xds_stream = ?, last_seen = ? WHERE id = ?", s -> {
      s.setString(1, streamId);
      Rows.setInstant(s, 2, clock.instant());
      s.setString(3, id);
    });
  }

  /** The xDS stream {@code streamId} closed: disconnected, unless a newer stream took over. */
  public void streamClosed(String id, String streamId) {
    update("UPDATE edges SET connected = FALSE, last_seen = ? WHERE id = ? AND xds_stream = ?", s -> {
      Rows.setInstant(s, 1, clock.instant());
      s.setString(2, id);
      s.setString(3, streamId);
    });
  }

  /** Every edge disconnected: at the start of the only central (embedded database), nothing is connected yet. */
  public void clearConnected() {
    update("UPDATE edges SET connected = FALSE WHERE connected = TRUE", s -> {});
  }

  /** The versions the edge ACKed, by type URL (replacing the previous map); seen now. */
  public void recordAcked(String id, Map<String, String> ackedVersions) {
    recordAcked(Map.of(id, ackedVersions));
  }

  /**
   * The versions several edges ACKed (edge id → type URL → version), in one transaction: a change
   * pushed to a fleet comes back as one ACK per edge, and one commit for all of them keeps the
   * database free for the next change.
   */
  public void recordAcked(Map<String, Map<String, String>> ackedByEdge) {
    if (ackedByEdge.isEmpty()) {
      return;
    }
    Instant now = clock.instant();
    database.inTransaction(c -> {
      try (PreparedStatement s = c.prepareStatement("UPDATE edges SET acked_versions = ?, last_seen = ? WHERE id = ?")) {
        for (Map.Entry<String, Map<String, String>> edge : ackedByEdge.entrySet()) {
          s.setString(1, json.write(edge.getValue()));
          Rows.setInstant(s, 2, now);
          s.setString(3, edge.getKey());
          s.addBatch();
        }
        return s.executeBatch().length;
      }
    });
  }

  /** The edge refused a version of a type, with its error detail; seen now. */
  public void recordNack(String id, String typeUrl, String version, String error) {
    Instant now = clock.instant();
    database.inTransaction(c -> {
      Map<String, String> refused = new java.util.TreeMap<>(refusedVersions(c, id));
      refused.put(typeUrl, version);
      try (PreparedStatement s = c.prepareStatement("UPDATE edges SET last_nack_type = ?, last_nack_version = ?, "
          + "last_nack_error = ?, last_nack_at = ?, last_seen = ?, refused_versions = ? WHERE id = ?")) {
        s.setString(1, typeUrl);
        s.setString(2, version);
        s.setString(3, error);
        Rows.setInstant(s, 4, now);
        Rows.setInstant(s, 5, now);
        s.setString(6, json.write(refused));
        s.setString(7, id);
        return s.executeUpdate();
      }
    });
  }

  /**
   * The edge took another version of a type after refusing {@code version}: the refusal no longer
   * holds (unless a newer refusal replaced it).
   */
  public void clearRefused(String id, String typeUrl, String version) {
    database.inTransaction(c -> {
      Map<String, String> refused = new java.util.TreeMap<>(refusedVersions(c, id));
      if (!version.equals(refused.get(typeUrl))) {
        return 0;
      }
      refused.remove(typeUrl);
      try (PreparedStatement s = c.prepareStatement("UPDATE edges SET refused_versions = ? WHERE id = ?")) {
        s.setString(1, refused.isEmpty() ? null : json.write(refused));
        s.setString(2, id);
        return s.executeUpdate();
      }
    });
  }

  /** The edge's refused versions, read for update (empty when none, or no such edge). */
  private Map<String, String> refusedVersions(java.sql.Connection c, String id) throws SQLException {
    try (PreparedStatement s = c.prepareStatement("SELECT refused_versions FROM edges WHERE id = ? FOR UPDATE")) {
      s.setString(1, id);
      try (ResultSet r = s.executeQuery()) {
        return r.next() ? versions(r.getString(1)) : Map.of();
      }
    }
  }

  private Map<String, String> versions(String stored) {
    return stored == null ? Map.of() : json.mapper().convertValue(json.parseStored(stored), STRING_MAP);
  }

  /** A stream presenting this edge's id was refused (wrong credential); the reason has no secret in it. */
  public void recordAuthFailure(String id, String reason) {
    update("UPDATE edges SET last_auth_failure = ?, last_auth_failure_at = ? WHERE id = ?", s -> {
      s.setString(1, reason);
      Rows.setInstant(s, 2, clock.instant());
      s.setString(3, id);
    });
  }

  private interface Binder {
    void bind(PreparedStatement statement) throws SQLException;
  }

  private void update(String sql, Binder binder) {
    database.inTransaction(c -> {
      try (PreparedStatement s = c.prepareStatement(sql)) {
        binder.bind(s);
        return s.executeUpdate();
      }
    });
  }

  /** Whether a credential hash belongs to this edge (for the xDS stream). */
  public boolean credentialMatches(String id, String credentialHash) {
    return credentialHash(id).map(stored -> io.spillway.central.auth.Secrets.constantTimeEquals(stored, credentialHash))
        .orElse(false);
  }

  /**
   * The edge whose current credential has this hash (a call that carries no node id, such as the
   * rate limit service's); empty when no registered edge has it.
   */
  public Optional<String> edgeWithCredential(String credentialHash) {
    return database.inTransaction(c -> {
      try (PreparedStatement s = c.prepareStatement("SELECT id FROM edges WHERE credential_hash = ?")) {
        s.setString(1, credentialHash);
        try (ResultSet r = s.executeQuery()) {
          return r.next() ? Optional.ofNullable(r.getString(1)) : Optional.<String>empty();
        }
      }
    });
  }

  /** The hash of the edge's current credential; empty when it is not registered. */
  public Optional<String> credentialHash(String id) {
    return database.inTransaction(c -> {
      try (PreparedStatement s = c.prepareStatement("SELECT credential_hash FROM edges WHERE id = ?")) {
        s.setString(1, id);
        try (ResultSet r = s.executeQuery()) {
          return r.next() ? Optional.ofNullable(r.getString(1)) : Optional.<String>empty();
        }
      }
    });
  }

  /** The credential hashes of several edges, by id; edges that are not registered are left out. */
  public Map<String, String> credentialHashes(java.util.Collection<String> ids) {
    return database.inTransaction(c -> {
      java.util.Set<String> wanted = new java.util.HashSet<>(ids);
      Map<String, String> hashes = new java.util.HashMap<>();
      try (PreparedStatement s = c.prepareStatement("SELECT id, credential_hash FROM edges"); ResultSet r = s.executeQuery()) {
        while (r.next()) {
          if (wanted.contains(r.getString(1)) && r.getString(2) != null) {
            hashes.put(r.getString(1), r.getString(2));
          }
        }
      }
      return hashes;
    });
  }

  /**
   * Runs reads of several stores in one transaction of this store's database: one consistent
   * view and one round of connection handling, e.g. everything one xDS push reads for an edge.
   */
  public <T> T inOneTransaction(java.util.function.Supplier<T> work) {
    return database.inOneTransaction(work);
  }


  private Edge read(ResultSet r) throws SQLException {
    Map<String, String> labels = json.mapper().convertValue(json.parseStored(r.getString("labels")), STRING_MAP);
    LastNack nack = r.getString("last_nack_type") == null ? null : new LastNack(r.getString("last_nack_type"),
        r.getString("last_nack_version"), r.getString("last_nack_error"), Rows.getInstant(r, "last_nack_at"));
    Status status = new Status(r.getBoolean("connected"), Rows.getInstant(r, "last_seen"), r.getString("acked_versions"),
        nack, r.getString("reported_defaults"), r.getString("last_auth_failure") == null ? null
            : new AuthFailure(r.getString("last_auth_failure"), Rows.getInstant(r, "last_auth_failure_at")),
        versions(r.getString("refused_versions")));
    return new Edge(r.getString("id"), Map.copyOf(labels), Rows.getInstant(r, "created_at"), Rows.getInstant(r, "updated_at"), status);
  }
}
