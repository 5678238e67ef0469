package io.spillway.central.store;

import com.zaxxer.hikari.HikariConfig;
import com.zaxxer.hikari.HikariDataSource;
import com.zaxxer.hikari.HikariPoolMXBean;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.SQLException;
import java.time.Duration;
import java.util.Objects;
import javax.sql.DataSource;
import org.flywaydb.core.Flyway;
import org.flywaydb.core.api.output.MigrateResult;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Central's database: a HikariCP pool over either the embedded H2 file in the data directory or
 * PostgreSQL, migrated at start by Flyway from the one history in {@code db/migration}. H2 runs in
 * its PostgreSQL compatibility mode so the same SQL serves both.
 */
public final class Database implements AutoCloseable {

  private static final Logger log = LoggerFactory.getLogger(Database.class);

  private final HikariDataSource pool;
  private final String kind;
  private volatile boolean migrated;
  /** The connection of the transaction running on this thread, which nested calls join. */
  private final ThreadLocal<Connection> current = new ThreadLocal<>();

  private Database(HikariDataSource pool, String kind) {
    this.pool = pool;
    this.kind = kind;
  }

  /**
   * The JDBC URL of the embedded database in a data directory. {@code WRITE_DELAY=0} makes every
   * commit reach the file before the commit returns, so a process killed right after a 200 loses
   * nothing; {@code LOCK_TIMEOUT} lets concurrent writers of one edge wait for each other.
   */
  public static String embeddedUrl(Path dataDir) {
    return "jdbc:h2:file:" + dataDir.toAbsolutePath().resolve("central")
        + ";MODE=PostgreSQL;DATABASE_TO_LOWER=TRUE;DEFAULT_NULL_ORDERING=HIGH;WRITE_DELAY=0;LOCK_TIMEOUT=10000";
  }

  /**
   * Opens the pool and applies pending migrations.
   *
   * @param url a {@code jdbc:h2:} or {@code jdbc:postgresql:} URL
   * @param user the user, or null
   * @param password the password, or null; never logged
   */
  public static Database open(String url, String user, String password) {
    Objects.requireNonNull(url, "url");
    String kind;
    if (url.startsWith("jdbc:h2:")) {
      kind = "h2";
    } else if (url.startsWith("jdbc:postgresql:")) {
      kind = "postgresql";
    } else {
      throw new IllegalArgumentException("unsupported database URL: only jdbc:h2: and jdbc:postgresql: are supported");
    }
    HikariConfig config = new HikariConfig();
    config.setPoolName("central");
    config.setJdbcUrl(url);
    if (user != null) {
      config.setUsername(user);
    }
    if (password != null) {
      config.setPassword(password);
    }
    config.setMaximumPoolSize(10);
    config.setConnectionTimeout(Duration.ofSeconds(10).toMillis());
    config.setInitializationFailTimeout(Duration.ofSeconds(30).toMillis());
    HikariDataSource pool = new HikariDataSource(config);
    Database database = new Database(pool, kind);
    try {
      database.migrate();
    } catch (RuntimeException e) {
      pool.close();
      throw e;
    }
    return database;
  }

  private void migrate() {
    MigrateResult result = Flyway.configure(Database.class.getClassLoader())
        .dataSource(pool)
        .locations("classpath:db/migration")
        .load()
        .migrate();
    migrated = true;
    log.info("database {} ready: {} migration(s) applied, schema version {}", kind, result.migrationsExecuted,
        result.targetSchemaVersion != null ? result.targetSchemaVersion : result.initialSchemaVersion);
  }

  /** {@code h2} or {@code postgresql}. */
  public String kind() {
    return kind;
  }

  /** The pool. */
  public DataSource dataSource() {
    return pool;
  }

  /** The pool's live numbers, for metrics. */
  public HikariPoolMXBean poolStats() {
    return pool.getHikariPoolMXBean();
  }

  /** Whether the migrations ran and a connection answers a query within a second. */
  public boolean ready() {
    if (!migrated || pool.isClosed()) {
      return false;
    }
    try (Connection connection = pool.getConnection();
        PreparedStatement statement = connection.prepareStatement("SELECT 1")) {
      statement.setQueryTimeout(1);
      statement.execute();
      return true;
    } catch (SQLException e) {
      log.debug("readiness query failed: {}", e.getMessage());
      return false;
    }
  }

  /**
   * Runs work in one transaction: committed when it returns, rolled back when it throws.
   * {@link SQLException}s become {@link StoreException}s. Called from inside another transaction
   * on the same thread, the work joins it (one commit, one consistent read), so several stores'
   * reads can be combined with {@link #inOneTransaction}.
   */
  public <T> T inTransaction(SqlWork<T> work) {
    Connection joined = current.get();
    if (joined != null) {
      try {
        return work.run(joined);
      } catch (SQLException e) {
        throw new StoreException(e);
      }
    }
    try (Connection connection = pool.getConnection()) {
      connection.setAutoCommit(false);
      current.set(connection);
      try {
        T result = work.run(connection);
        connection.commit();
        return result;
      } catch (SQLException | RuntimeException e) {
        connection.rollback();
        throw e;
      } finally {
        current.remove();
      }
    } catch (SQLException e) {
      throw new StoreException(e);
    }
  }

  /** Runs work whose store calls all share one transaction (e.g. what one xDS push reads). */
  public <T> T inOneTransaction(java.util.function.Supplier<T> work) {
    return inTransaction(c -> work.get());
  }

  @Override
  public void close() {
    pool.close();
  }
}
