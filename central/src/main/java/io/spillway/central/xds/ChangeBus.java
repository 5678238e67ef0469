package io.spillway.central.xds;

/**
 * Tells the xDS server that an edge's configuration changed. Callers publish <em>after</em> the
 * change committed; the server then reads the committed state and pushes what differs to every
 * stream of that edge. With PostgreSQL the bus also reaches the other central replicas
 * ({@link PostgresChangeBus}); with the embedded database there is one replica
 * ({@link LocalChangeBus}).
 */
public interface ChangeBus extends AutoCloseable {

  /** Receives changes; must return quickly (the xDS server only queues the push). */
  @FunctionalInterface
  interface Listener {
    /**
     * The edge's configuration changed.
     *
     * @param edgeId the edge, or null when every edge may be affected
     */
    void changed(String edgeId);
  }

  /** The configuration of one edge changed (committed). */
  void publish(String edgeId);

  /** Something every edge may use changed (committed). */
  void publishAll();

  /** Adds a listener. */
  void subscribe(Listener listener);

  /** Stops delivering; publishing afterwards does nothing. */
  @Override
  void close();

  /**
   * The bus for a database: LISTEN/NOTIFY between the replicas sharing a PostgreSQL database, the
   * in-process bus for the embedded one (one replica).
   *
   * @param url the database's JDBC URL (PostgreSQL: for the listening connection)
   * @param user the user, or null
   * @param password the password, or null
   */
  static ChangeBus forDatabase(io.spillway.central.store.Database database, String url, String user, String password) {
    return "postgresql".equals(database.kind()) ? new PostgresChangeBus(database, url, user, password) : new LocalChangeBus();
  }

  /** A bus that drops everything, for callers that run without an xDS server. */
  static ChangeBus none() {
    return new ChangeBus() {
      @Override
      public void publish(String edgeId) {}

      @Override
      public void publishAll() {}

      @Override
      public void subscribe(Listener listener) {}

      @Override
      public void close() {}
    };
  }
}
