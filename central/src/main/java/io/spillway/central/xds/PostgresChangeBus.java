package io.spillway.central.xds;

import io.spillway.central.store.Database;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.PreparedStatement;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.Objects;
import java.util.UUID;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import org.postgresql.PGConnection;
import org.postgresql.PGNotification;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The bus between central replicas sharing one PostgreSQL database: LISTEN/NOTIFY on the channel
 * {@value #CHANNEL}. A change is delivered to this replica's listeners at once and sent with
 * {@code pg_notify} right after (the caller publishes after its commit, so other replicas never
 * read the state before it is visible). A dedicated connection (not from the pool) listens on its
 * own thread and waits in {@code PGConnection.getNotifications(timeout)}; PostgreSQL pushes the
 * notification to it, so there is no polling of tables. Notifications this replica sent itself
 * are skipped. When the listening connection breaks, it is reopened and every edge is re-synced
 * (a notification may have been missed meanwhile).
 */
public final class PostgresChangeBus extends LocalChangeBus {

  /** The notification channel. */
  public static final String CHANNEL = "spillway_xds_changes";

  private static final Logger log = LoggerFactory.getLogger(PostgresChangeBus.class);
  private static final String ALL = "*";
  private static final int WAIT_MILLIS = 500;

  private final Database database;
  private final String url;
  private final String user;
  private final String password;
  private final String replicaId = UUID.randomUUID().toString();
  private final ExecutorService notifier;
  private final Thread listenerThread;
  private volatile boolean running = true;
  private volatile Connection listening;

  /**
   * Starts listening.
   *
   * @param database the pool, for sending notifications
   * @param url the JDBC URL of the same database, for the dedicated listening connection
   * @param user the user, or null
   * @param password the password, or null; never logged
   */
  public PostgresChangeBus(Database database, String url, String user, String password) {
    this.database = Objects.requireNonNull(database, "database");
    this.url = Objects.requireNonNull(url, "url");
    this.user = user;
    this.password = password;
    this.notifier = Executors.newSingleThreadExecutor(r -> daemon(r, "xds-notify"));
    this.listenerThread = daemon(this::listen, "xds-listen");
    listenerThread.start();
  }

  private static Thread daemon(Runnable runnable, String name) {
    Thread thread = new Thread(runnable, name);
    thread.setDaemon(true);
    return thread;
  }

  @Override
  public void publish(String edgeId) {
    super.publish(edgeId);
    notifyOthers(edgeId);
  }

  @Override
  public void publishAll() {
    super.publishAll();
    notifyOthers(ALL);
  }

  private void notifyOthers(String target) {
    if (!running) {
      return;
    }
    String payload = replicaId + " " + target;
    try {
      notifier.execute(() -> {
        try {
          database.inTransaction(c -> {
            try (PreparedStatement s = c.prepareStatement("SELECT pg_notify(?, ?)")) {
              s.setString(1, CHANNEL);
              s.setString(2, payload);
              s.execute();
            }
            return null;
          });
        } catch (RuntimeException e) {
          log.warn("could not notify the other central replicas of a change: {}", e.getMessage());
        }
      });
    } catch (java.util.concurrent.RejectedExecutionException e) {
      // closing
    }
  }

  private void listen() {
    long backoffMillis = 250;
    boolean first = true;
    while (running) {
      try (Connection connection = DriverManager.getConnection(url, user, password)) {
        listening = connection;
        try (Statement statement = connection.createStatement()) {
          statement.execute("LISTEN " + CHANNEL);
        }
        PGConnection pg = connection.unwrap(PGConnection.class);
        if (!first) {
          log.info("listening for changes from other central replicas again; re-syncing every edge");
          deliver(null);
        }
        first = false;
        backoffMillis = 250;
        while (running) {
          PGNotification[] notifications = pg.getNotifications(WAIT_MILLIS);
          if (notifications == null) {
            continue;
          }
          for (PGNotification notification : notifications) {
            receive(notification.getParameter());
          }
        }
      } catch (SQLException e) {
        if (!running) {
          return;
        }
        log.warn("the connection listening for other replicas' changes failed ({}); retrying in {} ms", e.getMessage(), backoffMillis);
        first = false;
        try {
          Thread.sleep(backoffMillis);
        } catch (InterruptedException interrupted) {
          return;
        }
        backoffMillis = Math.min(backoffMillis * 2, 5_000);
      }
    }
  }

  private void receive(String payload) {
    int space = payload == null ? -1 : payload.indexOf(' ');
    if (space < 0) {
      return;
    }
    if (payload.substring(0, space).equals(replicaId)) {
      return; // delivered locally when published
    }
    String target = payload.substring(space + 1);
    deliver(ALL.equals(target) ? null : target);
  }

  @Override
  public void close() {
    running = false;
    super.close();
    notifier.shutdown();
    try {
      notifier.awaitTermination(2, TimeUnit.SECONDS);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
    listenerThread.interrupt();
    Connection connection = listening;
    if (connection != null) {
      try {
        connection.close();
      } catch (SQLException e) {
        log.debug("closing the listening connection: {}", e.getMessage());
      }
    }
    try {
      listenerThread.join(2_000);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }
}
