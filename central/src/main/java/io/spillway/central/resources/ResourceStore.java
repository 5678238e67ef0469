package io.spillway.central.resources;

import com.fasterxml.jackson.core.type.TypeReference;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.google.protobuf.Message;
import io.envoyproxy.envoy.config.cluster.v3.Cluster;
import io.envoyproxy.envoy.config.endpoint.v3.ClusterLoadAssignment;
import io.envoyproxy.envoy.config.listener.v3.Listener;
import io.envoyproxy.envoy.config.route.v3.RouteConfiguration;
import io.envoyproxy.envoy.service.runtime.v3.Runtime;
import io.spillway.central.store.Database;
import io.spillway.central.store.Rows;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Clock;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.ArrayList;
import java.util.EnumMap;
import java.util.HashMap;
import java.util.HexFormat;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.function.Consumer;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Resources for the edges in the database ({@code edge_resources}). Every change runs in one
 * transaction that first locks the change counter row ({@code SELECT … FOR UPDATE}, on H2 and
 * PostgreSQL alike), so changes — and the cross-resource checks they need — run one after the
 * other: two deploy tools registering endpoints of one cluster at once both land. The resource
 * row, the counter and the audit row commit together or not at all.
 */
public final class ResourceStore {

  private static final Logger log = LoggerFactory.getLogger(ResourceStore.class);
  private static final TypeReference<Map<String, String>> LABELS = new TypeReference<>() {};
  private static final String COLUMNS = "type, target, name, edge_id, selector, body, revision, change_seq, updated_at, updated_by";

  private final Database database;
  private final Clock clock;
  private final ResourceCodec codec = new ResourceCodec();
  private final ResourceValidator validator = new ResourceValidator(codec.registry());
  private final ObjectMapper mapper = new ObjectMapper();
  private final List<Consumer<Target>> listeners = new CopyOnWriteArrayList<>();

  /** A store on the database. */
  public ResourceStore(Database database, Clock clock) {
    this.database = Objects.requireNonNull(database, "database");
    this.clock = Objects.requireNonNull(clock, "clock");
  }

  /**
   * What one edge receives, with a version per type; empty when the edge is not registered.
   * For the xDS server.
   */
  public Optional<EffectiveResources> effectiveFor(String edgeId) {
    return database.inTransaction(c -> {
      long counter = counter(c, false);
      Optional<Map<String, String>> labels = labels(c, edgeId);
      if (labels.isEmpty()) {
        return Optional.empty();
      }
      return Optional.of(effective(edgeId, labels.get(), candidates(c, edgeId), counter));
    });
  }

  /**
   * What each of several edges receives, read in one transaction with each row read once (every
   * selector's rows are shared by all the edges): for a change that reaches a fleet. Edges that
   * are not registered are left out.
   */
  public Map<String, EffectiveResources> effectiveFor(java.util.Collection<String> edgeIds) {
    return database.inTransaction(c -> {
      long counter = counter(c, false);
      Map<String, Map<String, String>> labels = new HashMap<>();
      try (PreparedStatement s = c.prepareStatement("SELECT id, labels FROM edges"); ResultSet r = s.executeQuery()) {
        java.util.Set<String> wanted = new java.util.HashSet<>(edgeIds);
        while (r.next()) {
          if (wanted.contains(r.getString(1))) {
            labels.put(r.getString(1), mapper.readValue(r.getString(2), LABELS));
          }
        }
      } catch (com.fasterxml.jackson.core.JsonProcessingException e) {
        throw new IllegalStateException("stored edge labels do not read", e);
      }
      List<StoredResource> selectorRows = rows(c, "body IS NOT NULL AND selector IS NOT NULL", null);
      Map<String, List<StoredResource>> ownRows = new HashMap<>();
      for (StoredResource row : rows(c, "body IS NOT NULL AND edge_id IS NOT NULL", null)) {
        if (labels.containsKey(row.target().edgeId())) {
          ownRows.computeIfAbsent(row.target().edgeId(), id -> new ArrayList<>()).add(row);
        }
      }
      Map<String, EffectiveResources> result = new LinkedHashMap<>();
      for (String edgeId : edgeIds) {
        Map<String, String> edgeLabels = labels.get(edgeId);
        if (edgeLabels != null) {
          List<StoredResource> rows = new ArrayList<>(selectorRows);
          rows.addAll(ownRows.getOrDefault(edgeId, List.of()));
          result.put(edgeId, effective(edgeId, edgeLabels, rows, counter));
        }
      }
      return result;
    });
  }

  private EffectiveResources effective(String edgeId, Map<String, String> labels, List<StoredResource> candidates,
      long counter) {
    Map<ResourceType, Map<String, StoredResource>> winners = Precedence.winners(candidates, edgeId, labels);
    return new EffectiveResources(edgeId, counter,
        parsed(winners.get(ResourceType.CLUSTERS), ResourceType.CLUSTERS, Cluster.class),
        parsed(winners.get(ResourceType.ENDPOINTS), ResourceType.ENDPOINTS, ClusterLoadAssignment.class),
        parsed(winners.get(ResourceType.LISTENERS), ResourceType.LISTENERS, Listener.class),
        parsed(winners.get(ResourceType.ROUTES), ResourceType.ROUTES, RouteConfiguration.class),
        parsed(winners.get(ResourceType.RUNTIMES), ResourceType.RUNTIMES, Runtime.class),
        versions(winners));
  }

  /**
   * Calls {@code listener} after every committed change with the target changed (an edge, or a
   * selector: then every edge it matches), e.g. to publish on the xDS server's change bus. Listeners
   * run on the request thread after the commit and must not block; register them before serving.
   */
  public void onChange(Consumer<Target> listener) {
    listeners.add(Objects.requireNonNull(listener, "listener"));
  }

  /** The codec the store reads and writes with. */
  ResourceCodec codec() {
    return codec;
  }

  /**
   * The first problem, in the translator's words, of what an edge receives now; empty when it
   * holds together (or the edge is not registered). Every resource change is checked before it is
   * stored, but registering an edge or changing its labels can bring selectors' resources together
   * that clash (two listeners on one address, say): the edge registry asks here, inside the
   * transaction that registers or relabels the edge (it sees the new labels, and waits for and
   * holds off resource changes), and refuses a change that would break the edge.
   */
  public Optional<String> problem(String edgeId) {
    return database.inTransaction(c -> {
      counter(c, true); // one at a time with resource changes, whose checks read the labels
      Optional<Map<String, String>> labels = labels(c, edgeId);
      if (labels.isEmpty()) {
        return Optional.empty();
      }
      return validator.check(set(Precedence.winners(candidates(c, edgeId), edgeId, labels.get()), new HashMap<>()), null, null);
    });
  }

  /** The change counter: it grows with every accepted resource change (cheap to poll). */
  public long changeCounter() {
    return database.inTransaction(c -> counter(c, false));
  }

  /** The winning stored rows for an edge, by type and name; empty when the edge is not registered. */
  Optional<Map<ResourceType, Map<String, StoredResource>>> winners(String edgeId) {
    return database.inTransaction(c -> {
      Optional<Map<String, String>> labels = labels(c, edgeId);
      return labels.isEmpty() ? Optional.empty() : Optional.of(Precedence.winners(candidates(c, edgeId), edgeId, labels.get()));
    });
  }

  /** The live resources assigned to exactly this target, by type then name; empty for an unknown edge. */
  Optional<List<StoredResource>> assigned(Target target) {
    return database.inTransaction(c -> {
      if (!target.isSelector() && labels(c, target.edgeId()).isEmpty()) {
        return Optional.empty();
      }
      List<StoredResource> rows = new ArrayList<>();
      try (PreparedStatement s = c.prepareStatement("SELECT " + COLUMNS + " FROM edge_resources WHERE target = ? AND body IS NOT NULL")) {
        s.setString(1, target.key());
        try (ResultSet r = s.executeQuery()) {
          while (r.next()) {
            read(r).ifPresent(rows::add);
          }
        }
      }
      rows.sort((a, b) -> a.type() != b.type() ? a.type().compareTo(b.type()) : a.name().compareTo(b.name()));
      return Optional.of(rows);
    });
  }

  /** One live resource; for an unknown edge, {@link Lookup#unknownEdge()} is true. */
  Lookup get(ResourceType type, Target target, String name) {
    return database.inTransaction(c -> {
      if (!target.isSelector() && labels(c, target.edgeId()).isEmpty()) {
        return new Lookup(true, null);
      }
      StoredResource row = row(c, type, target, name);
      return new Lookup(false, row != null && row.live() ? row : null);
    });
  }

  /**
   * A read.
   *
   * @param unknownEdge the target edge is not registered
   * @param resource the live resource, or null
   */
  record Lookup(boolean unknownEdge, StoredResource resource) {}

  /** A change of one resource: the new resource from the current one (null = absent / delete). */
  @FunctionalInterface
  interface Edit {
    /**
     * The resource after the change.
     *
     * @param current the resource now, or null when there is none
     * @return the resource after, or null to delete it
     */
    Message apply(Message current);
  }

  /** What a change did. */
  sealed interface Result {}

  /** The target edge is not registered. */
  record UnknownEdge() implements Result {}

  /**
   * {@code expectedRevision} did not match.
   *
   * @param actual the revision now (0 when the resource never existed)
   */
  record Conflict(long actual) implements Result {}

  /**
   * The change would give some edge what it would NACK.
   *
   * @param problem the translator's message (naming the resource and field)
   */
  record Invalid(String problem) implements Result {}

  /**
   * The change was applied (or, for a dry run, would be).
   *
   * @param before the live resource before, or null
   * @param after the row after (json null when deleted)
   * @param changed false when the resource was already so (nothing written, revision unchanged)
   */
  record Done(StoredResource before, StoredResource after, boolean changed) implements Result {}

  /**
   * Applies a change atomically: checks the expected revision, validates what every edge the
   * target covers would receive (for a selector that covers no edge yet, the selector's own
   * resources), then stores it with a new revision, bumps the change counter and writes the audit
   * row. A dry run, a conflict or an invalid change writes nothing.
   *
   * @param expectedRevision the revision the caller saw (0 = must not exist), or null to skip the check
   * @param operator who sends it, for the audit row
   */
  Result change(ResourceType type, Target target, String name, Edit edit, Long expectedRevision, boolean dryRun,
      String operator) {
    Result result = changeInTransaction(type, target, name, edit, expectedRevision, dryRun, operator);
    if (!dryRun && result instanceof Done done && done.changed()) {
      for (Consumer<Target> listener : listeners) {
        try {
          listener.accept(target);
        } catch (RuntimeException e) {
          log.warn("resource change listener failed: {}", e.toString());
        }
      }
    }
    return result;
  }

  private Result changeInTransaction(ResourceType type, Target target, String name, Edit edit, Long expectedRevision,
      boolean dryRun, String operator) {
    return database.inTransaction(c -> {
      long counter = counter(c, true);
      if (!target.isSelector() && labels(c, target.edgeId()).isEmpty()) {
        return new UnknownEdge();
      }
      StoredResource current = row(c, type, target, name);
      long revision = current == null ? 0 : current.revision();
      if (expectedRevision != null && expectedRevision != revision) {
        return new Conflict(revision);
      }
      StoredResource before = current != null && current.live() ? current : null;
      Message after = edit.apply(before == null ? null : codec.parseStored(before.json(), type));
      String afterJson = after == null ? null : codec.print(type.withName(after, name));
      if (Objects.equals(afterJson, before == null ? null : before.json())) {
        return new Done(before, before == null ? current : before, false);
      }
      Instant now = clock.instant().truncatedTo(ChronoUnit.MICROS); // what both databases keep
      StoredResource next = new StoredResource(type, target, name, afterJson, revision + 1, counter + 1, now, operator);
      Optional<String> problem = alone(next);
      if (problem.isEmpty()) {
        problem = validate(c, next);
      }
      if (problem.isPresent()) {
        return new Invalid(problem.get());
      }
      if (dryRun) {
        return new Done(before, next, true);
      }
      save(c, next, current != null);
      try (PreparedStatement s = c.prepareStatement("UPDATE resource_changes SET seq = ? WHERE id = 1")) {
        s.setLong(1, counter + 1);
        s.executeUpdate();
      }
      audit(c, before, next);
      return new Done(before, next, true);
    });
  }

  /**
   * Clusters, endpoints and runtime layers need no other resource: their problems are the same on
   * every edge.
   */
  private Optional<String> alone(StoredResource next) {
    if (!next.live() || next.type() == ResourceType.LISTENERS || next.type() == ResourceType.ROUTES) {
      return Optional.empty();
    }
    return validator.check(set(List.of(next), new HashMap<>()), next.type(), next.name());
  }

  private Optional<String> validate(Connection c, StoredResource next) throws SQLException {
    Target target = next.target();
    Map<String, Map<String, String>> edges = new LinkedHashMap<>();
    if (target.isSelector()) {
      try (PreparedStatement s = c.prepareStatement("SELECT id, labels FROM edges ORDER BY id"); ResultSet r = s.executeQuery()) {
        while (r.next()) {
          Map<String, String> labels = mapper.readValue(r.getString("labels"), LABELS);
          if (target.covers(r.getString("id"), labels)) {
            edges.put(r.getString("id"), labels);
          }
        }
      } catch (com.fasterxml.jackson.core.JsonProcessingException e) {
        throw new IllegalStateException("stored edge labels do not read", e);
      }
    } else {
      edges.put(target.edgeId(), labels(c, target.edgeId()).orElseThrow());
    }
    Map<String, Message> parsed = new HashMap<>();
    if (edges.isEmpty()) {
      // A selector no edge matches yet: its own resources must hold together, with the clusters of
      // every other selector (any of them may reach the same future edge) counted as known.
      List<StoredResource> rows = new ArrayList<>(rows(c, "type = 'clusters' AND selector IS NOT NULL AND body IS NOT NULL AND target <> ?",
          target.key()));
      rows.addAll(replace(rows(c, "target = ?", target.key()), next));
      return validator.check(set(rows, parsed), next.type(), next.name());
    }
    // Read once for all the edges: every selector's rows, and the edges' own rows by edge. Edges
    // that end up with the same set (the usual case for a fleet under one selector) are checked once.
    List<StoredResource> selectorRows = without(rows(c, "body IS NOT NULL AND selector IS NOT NULL", null), next);
    Map<String, List<StoredResource>> ownRows = new HashMap<>();
    for (StoredResource row : edges.size() == 1 ? rows(c, "body IS NOT NULL AND edge_id = ?", edges.keySet().iterator().next())
        : rows(c, "body IS NOT NULL AND edge_id IS NOT NULL", null)) {
      ownRows.computeIfAbsent(row.target().edgeId(), id -> new ArrayList<>()).add(row);
    }
    Map<Map<ResourceType, Map<String, StoredResource>>, Optional<String>> checked = new HashMap<>();
    for (Map.Entry<String, Map<String, String>> edge : edges.entrySet()) {
      List<StoredResource> rows = new ArrayList<>(selectorRows);
      rows.addAll(without(ownRows.getOrDefault(edge.getKey(), List.of()), next));
      rows.add(next);
      Map<ResourceType, Map<String, StoredResource>> winners = Precedence.winners(rows, edge.getKey(), edge.getValue());
      StoredResource winner = winners.get(next.type()).get(next.name());
      if (next.live() && winner != next) {
        continue; // shadowed on this edge: what it receives does not change
      }
      Optional<String> problem = checked.computeIfAbsent(winners,
          w -> validator.check(set(w, parsed), next.type(), next.name()));
      if (problem.isPresent()) {
        return Optional.of(target.isSelector()
            ? problem.get() + " (on edge " + edge.getKey() + ", which the selector matches)" : problem.get());
      }
    }
    return Optional.empty();
  }

  private static List<StoredResource> replace(List<StoredResource> rows, StoredResource next) {
    List<StoredResource> replaced = without(rows, next);
    replaced.add(next);
    return replaced;
  }

  /** The rows but the stored version of {@code next} (same type, target and name). */
  private static List<StoredResource> without(List<StoredResource> rows, StoredResource next) {
    List<StoredResource> kept = new ArrayList<>(rows.size() + 1);
    for (StoredResource row : rows) {
      if (!(row.type() == next.type() && row.target().equals(next.target()) && row.name().equals(next.name()))) {
        kept.add(row);
      }
    }
    return kept;
  }

  private ResourceSet set(List<StoredResource> rows, Map<String, Message> parsed) {
    Map<ResourceType, Map<String, StoredResource>> byType = new EnumMap<>(ResourceType.class);
    for (StoredResource row : rows) {
      if (row.live()) {
        byType.computeIfAbsent(row.type(), t -> new HashMap<>()).put(row.name(), row);
      }
    }
    return set(byType, parsed);
  }

  private ResourceSet set(Map<ResourceType, Map<String, StoredResource>> winners, Map<String, Message> parsed) {
    Map<ResourceType, Map<String, Message>> byType = new EnumMap<>(ResourceType.class);
    winners.forEach((type, byName) -> {
      Map<String, Message> messages = new HashMap<>();
      byName.forEach((name, row) -> messages.put(name, parsed.computeIfAbsent(type + "\n" + row.json(),
          k -> codec.parseStored(row.json(), type))));
      byType.put(type, messages);
    });
    return new ResourceSet(byType);
  }

  private <T extends Message> Map<String, T> parsed(Map<String, StoredResource> rows, ResourceType type, Class<T> kind) {
    Map<String, T> messages = new LinkedHashMap<>();
    rows.forEach((name, row) -> messages.put(name, kind.cast(codec.parseStored(row.json(), type))));
    return messages;
  }

  /** The version of each type of a set of winners. */
  static Map<ResourceType, String> versions(Map<ResourceType, Map<String, StoredResource>> winners) {
    Map<ResourceType, String> versions = new EnumMap<>(ResourceType.class);
    winners.forEach((type, byName) -> versions.put(type, version(byName)));
    return versions;
  }

  /** A digest of name and content of every resource, sorted by name: equal content, equal version. */
  private static String version(Map<String, StoredResource> byName) {
    try {
      MessageDigest digest = MessageDigest.getInstance("SHA-256");
      for (StoredResource row : byName.values()) {
        digest.update(row.name().getBytes(StandardCharsets.UTF_8));
        digest.update((byte) 0);
        digest.update(row.json().getBytes(StandardCharsets.UTF_8));
        digest.update((byte) 0);
      }
      return HexFormat.of().formatHex(digest.digest(), 0, 8);
    } catch (NoSuchAlgorithmException e) {
      throw new IllegalStateException(e);
    }
  }

  private static long counter(Connection c, boolean lock) throws SQLException {
    try (PreparedStatement s = c.prepareStatement("SELECT seq FROM resource_changes WHERE id = 1" + (lock ? " FOR UPDATE" : ""));
        ResultSet r = s.executeQuery()) {
      if (!r.next()) {
        throw new IllegalStateException("resource_changes has no counter row");
      }
      return r.getLong(1);
    }
  }

  private Optional<Map<String, String>> labels(Connection c, String edgeId) throws SQLException {
    try (PreparedStatement s = c.prepareStatement("SELECT labels FROM edges WHERE id = ?")) {
      s.setString(1, edgeId);
      try (ResultSet r = s.executeQuery()) {
        if (!r.next()) {
          return Optional.empty();
        }
        return Optional.of(Map.copyOf(mapper.readValue(r.getString(1), LABELS)));
      }
    } catch (com.fasterxml.jackson.core.JsonProcessingException e) {
      throw new IllegalStateException("stored edge labels do not read", e);
    }
  }

  /** The live rows that may reach an edge: its own and every selector's (matched later). */
  private List<StoredResource> candidates(Connection c, String edgeId) throws SQLException {
    return rows(c, "body IS NOT NULL AND (edge_id = ? OR selector IS NOT NULL)", edgeId);
  }

  /** The rows matching {@code where}, whose one parameter (if any) is {@code arg}. */
  private List<StoredResource> rows(Connection c, String where, String arg) throws SQLException {
    List<StoredResource> rows = new ArrayList<>();
    try (PreparedStatement s = c.prepareStatement("SELECT " + COLUMNS + " FROM edge_resources WHERE " + where)) {
      if (arg != null) {
        s.setString(1, arg);
      }
      try (ResultSet r = s.executeQuery()) {
        while (r.next()) {
          read(r).ifPresent(rows::add);
        }
      }
    }
    return rows;
  }

  private StoredResource row(Connection c, ResourceType type, Target target, String name) throws SQLException {
    try (PreparedStatement s = c.prepareStatement("SELECT " + COLUMNS + " FROM edge_resources WHERE type = ? AND target = ? AND name = ?")) {
      s.setString(1, type.jsonName());
      s.setString(2, target.key());
      s.setString(3, name);
      try (ResultSet r = s.executeQuery()) {
        return r.next() ? read(r).orElse(null) : null;
      }
    }
  }

  /** A row; empty for a type this version does not know (a newer central wrote it). */
  private static Optional<StoredResource> read(ResultSet r) throws SQLException {
    Optional<ResourceType> type = ResourceType.fromJsonName(r.getString("type"));
    if (type.isEmpty()) {
      return Optional.empty();
    }
    String edgeId = r.getString("edge_id");
    Target target = edgeId != null ? Target.edge(edgeId) : new Target(null, r.getString("selector"));
    return Optional.of(new StoredResource(type.get(), target, r.getString("name"), r.getString("body"), r.getLong("revision"),
        r.getLong("change_seq"), Rows.getInstant(r, "updated_at"), r.getString("updated_by")));
  }

  private static void save(Connection c, StoredResource next, boolean exists) throws SQLException {
    if (exists) {
      try (PreparedStatement s = c.prepareStatement("UPDATE edge_resources SET body = ?, revision = ?, change_seq = ?, "
          + "updated_at = ?, updated_by = ? WHERE type = ? AND target = ? AND name = ? AND revision = ?")) {
        s.setString(1, next.json());
        s.setLong(2, next.revision());
        s.setLong(3, next.changeSeq());
        Rows.setInstant(s, 4, next.updatedAt());
        s.setString(5, next.updatedBy());
        s.setString(6, next.type().jsonName());
        s.setString(7, next.target().key());
        s.setString(8, next.name());
        s.setLong(9, next.revision() - 1);
        if (s.executeUpdate() != 1) {
          throw new IllegalStateException("resource changed under the change counter lock");
        }
      }
      return;
    }
    try (PreparedStatement s = c.prepareStatement("INSERT INTO edge_resources (" + COLUMNS + ") VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)")) {
      s.setString(1, next.type().jsonName());
      s.setString(2, next.target().key());
      s.setString(3, next.name());
      s.setString(4, next.target().edgeId());
      s.setString(5, next.target().selector());
      s.setString(6, next.json());
      s.setLong(7, next.revision());
      s.setLong(8, next.changeSeq());
      Rows.setInstant(s, 9, next.updatedAt());
      s.setString(10, next.updatedBy());
      s.executeUpdate();
    }
  }

  private static void audit(Connection c, StoredResource before, StoredResource after) throws SQLException {
    try (PreparedStatement s = c.prepareStatement(
        "INSERT INTO audit (at, operator_name, edge_id, selector, section, before_json, after_json, revision) VALUES (?, ?, ?, ?, ?, ?, ?, ?)")) {
      Rows.setInstant(s, 1, after.updatedAt());
      s.setString(2, after.updatedBy());
      s.setString(3, after.target().edgeId());
      s.setString(4, after.target().selector());
      s.setString(5, section(after.type(), after.name()));
      s.setString(6, before == null ? null : before.json());
      s.setString(7, after.json());
      s.setLong(8, after.revision());
      s.executeUpdate();
    }
  }

  /** The audit section of a resource: {@code resources/<type>/<name>}. */
  static String section(ResourceType type, String name) {
    return "resources/" + type.jsonName() + "/" + name;
  }
}
