package io.spillway.central.store;

import java.sql.Connection;
import java.sql.SQLException;

/**
 * Work done on one connection inside one transaction.
 *
 * @param <T> what the work returns
 */
@FunctionalInterface
public interface SqlWork<T> {

  /** Does the work; throwing rolls the transaction back. */
  T run(Connection connection) throws SQLException;
}
