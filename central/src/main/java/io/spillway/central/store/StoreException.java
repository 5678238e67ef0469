package io.spillway.central.store;

import java.sql.SQLException;

/** A database failure the caller cannot fix (answered 500 or 503). */
public final class StoreException extends RuntimeException {

  /** Wraps the driver's exception. */
  public StoreException(SQLException cause) {
    super(cause.getMessage(), cause);
  }

  /** Whether the failure is a unique or primary key violation (SQLSTATE 23505 on both databases). */
  public boolean uniqueViolation() {
    return "23505".equals(((SQLException) getCause()).getSQLState());
  }
}
