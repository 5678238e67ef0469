package io.spillway.central.store;

import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Types;
import java.time.Instant;
import java.time.OffsetDateTime;
import java.time.ZoneOffset;

/** Reading and binding timestamps the same way on H2 and PostgreSQL ({@code TIMESTAMP WITH TIME ZONE}). */
public final class Rows {

  private Rows() {}

  /** Binds an instant, or SQL NULL. */
  public static void setInstant(PreparedStatement statement, int index, Instant instant) throws SQLException {
    if (instant == null) {
      statement.setNull(index, Types.TIMESTAMP_WITH_TIMEZONE);
    } else {
      statement.setObject(index, OffsetDateTime.ofInstant(instant, ZoneOffset.UTC));
    }
  }

  /** Reads an instant, or null. */
  public static Instant getInstant(ResultSet row, String column) throws SQLException {
    OffsetDateTime value = row.getObject(column, OffsetDateTime.class);
    return value == null ? null : value.toInstant();
  }

  /** An instant as ISO-8601 text for JSON, or null. */
  public static String text(Instant instant) {
    return instant == null ? null : instant.toString();
  }
}
