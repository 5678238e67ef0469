package io.spillway.central;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.Comparator;
import java.util.HexFormat;
import java.util.concurrent.ThreadLocalRandom;
import java.util.stream.Stream;

/**
 * A database for one test class: the embedded H2 in a fresh temporary data directory, or the real
 * PostgreSQL ({@code spillway.test.postgres.url}, trust auth) in a freshly created schema that is
 * dropped afterwards, so runs never see each other's rows.
 */
final class TestDatabase implements AutoCloseable {

  /** Which database. */
  enum Kind { H2, POSTGRESQL }

  private final Kind kind;
  private final Path dataDir;
  private final String url;
  private final String user;
  private final String schema;

  private TestDatabase(Kind kind, Path dataDir, String url, String user, String schema) {
    this.kind = kind;
    this.dataDir = dataDir;
    this.url = url;
    this.user = user;
    this.schema = schema;
  }

  static TestDatabase create(Kind kind) throws IOException, SQLException {
    Path dataDir = Files.createTempDirectory("central-it-");
    if (kind == Kind.H2) {
      return new TestDatabase(kind, dataDir, null, null, null);
    }
    String base = System.getProperty("spillway.test.postgres.url", "jdbc:postgresql://127.0.0.1:5432/test");
    String user = System.getProperty("spillway.test.postgres.user", "postgres");
    String schema = "it_" + HexFormat.of().toHexDigits(ThreadLocalRandom.current().nextLong());
    try (Connection connection = DriverManager.getConnection(base, user, null); Statement statement = connection.createStatement()) {
      statement.execute("CREATE SCHEMA " + schema);
    } catch (SQLException e) {
      throw new SQLException("central's tests need PostgreSQL at " + base + " (user " + user + ", trust auth): start it "
          + "(.ci/run does), or point -Dspillway.test.postgres.url / -Dspillway.test.postgres.user elsewhere", e);
    }
    return new TestDatabase(kind, dataDir, base + (base.contains("?") ? "&" : "?") + "currentSchema=" + schema, user, schema);
  }

  Kind kind() {
    return kind;
  }

  Path dataDir() {
    return dataDir;
  }

  /** The JDBC URL to give central, or null for the embedded database. */
  String url() {
    return url;
  }

  String user() {
    return user;
  }

  @Override
  public void close() throws IOException, SQLException {
    if (schema != null) {
      String base = System.getProperty("spillway.test.postgres.url", "jdbc:postgresql://127.0.0.1:5432/test");
      try (Connection connection = DriverManager.getConnection(base, user, null); Statement statement = connection.createStatement()) {
        statement.execute("DROP SCHEMA " + schema + " CASCADE");
      }
    }
    try (Stream<Path> files = Files.walk(dataDir)) {
      for (Path path : files.sorted(Comparator.reverseOrder()).toList()) {
        Files.deleteIfExists(path);
      }
    }
  }
}
