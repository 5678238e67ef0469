package io.spillway.central.policy;

import io.spillway.central.store.Database;
import io.spillway.central.store.Rows;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;

/**
 * Reads the audit log, newest first. Rows are written with the change by {@link PolicyStore} and by
 * {@code io.spillway.central.resources.ResourceStore}.
 */
public final class AuditStore {

  /**
   * One audited change.
   *
   * @param id increasing row id
   * @param at when
   * @param operator who
   * @param edgeId which edge, or null for a change assigned to a label selector
   * @param section which section: a policy section, or {@code resources/<type>/<name>}
   * @param before JSON before, or null
   * @param after JSON after, or null when deleted
   * @param revision the section's revision after the change
   * @param selector the label selector a resource change was assigned to, or null
   */
  public record Entry(long id, Instant at, String operator, String edgeId, String section, String before, String after, long revision,
      String selector) {}

  /**
   * Which rows to read; null fields do not filter.
   *
   * @param edgeId only this edge
   * @param section only this section
   * @param operator only this operator
   * @param since only at or after this instant
   * @param limit at most this many rows
   */
  public record Filter(String edgeId, String section, String operator, Instant since, int limit) {}

  private final Database database;

  /** A store on the database. */
  public AuditStore(Database database) {
    this.database = Objects.requireNonNull(database, "database");
  }

  /** The matching rows, newest first. */
  public List<Entry> query(Filter filter) {
    StringBuilder sql = new StringBuilder(
        "SELECT id, at, operator_name, edge_id, section, before_json, after_json, revision, selector FROM audit WHERE 1 = 1");
    List<Object> args = new ArrayList<>();
    if (filter.edgeId() != null) {
      sql.append(" AND edge_id = ?");
      args.add(filter.edgeId());
    }
    if (filter.section() != null) {
      sql.append(" AND section = ?");
      args.add(filter.section());
    }
    if (filter.operator() != null) {
      sql.append(" AND operator_name = ?");
      args.add(filter.operator());
    }
    if (filter.since() != null) {
      sql.append(" AND at >= ?");
      args.add(filter.since());
    }
    sql.append(" ORDER BY id DESC LIMIT ?");
    return database.inTransaction(c -> {
      List<Entry> entries = new ArrayList<>();
      try (PreparedStatement s = c.prepareStatement(sql.toString())) {
        int index = 1;
        for (Object arg : args) {
          if (arg instanceof Instant instant) {
            Rows.setInstant(s, index++, instant);
          } else {
            s.setString(index++, (String) arg);
          }
        }
        s.setInt(index, filter.limit());
        try (ResultSet r = s.executeQuery()) {
          while (r.next()) {
            entries.add(new Entry(r.getLong("id"), Rows.getInstant(r, "at"), r.getString("operator_name"), r.getString("edge_id"),
                r.getString("section"), r.getString("before_json"), r.getString("after_json"), r.getLong("revision"),
                r.getString("selector")));
          }
        }
      }
      return entries;
    });
  }
}
