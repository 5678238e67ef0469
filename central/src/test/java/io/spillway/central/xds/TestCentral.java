package io.spillway.central.xds;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.spillway.central.ApiClient;
import io.spillway.central.CentralConfig;
import io.spillway.central.CentralServer;
import java.io.IOException;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.SecureRandom;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Clock;
import java.util.Comparator;
import java.util.HexFormat;
import java.util.UUID;
import java.util.concurrent.ThreadLocalRandom;
import java.util.stream.Stream;

/**
 * A central running in this JVM for the xDS tests: its own embedded database in a temporary data
 * directory, or a fresh PostgreSQL schema (dropped afterwards; {@link #postgres()} shares one
 * schema between replicas). HTTP and xDS on free loopback ports.
 */
final class TestCentral implements AutoCloseable {

  static final String ADMIN_TOKEN = "xds-test-admin-token-" + UUID.randomUUID();
  private static final ObjectMapper JSON = new ObjectMapper();

  /** A PostgreSQL schema several centrals can share. */
  static final class Schema implements AutoCloseable {
    final String base = System.getProperty("spillway.test.postgres.url", "jdbc:postgresql://127.0.0.1:5432/test");
    final String user = System.getProperty("spillway.test.postgres.user", "postgres");
    final String name = "xds_" + HexFormat.of().toHexDigits(ThreadLocalRandom.current().nextLong());

    Schema() throws SQLException {
      try (Connection c = DriverManager.getConnection(base, user, null); Statement s = c.createStatement()) {
        s.execute("CREATE SCHEMA " + name);
      }
    }

    String url() {
      return base + (base.contains("?") ? "&" : "?") + "currentSchema=" + name;
    }

    @Override
    public void close() throws SQLException {
      try (Connection c = DriverManager.getConnection(base, user, null); Statement s = c.createStatement()) {
        s.execute("DROP SCHEMA " + name + " CASCADE");
      }
    }
  }

  private final Path dataDir;
  final CentralServer server;
  private final ApiClient api;

  private TestCentral(Path dataDir, String url, String user) {
    this.dataDir = dataDir;
    this.server = CentralServer.start(CentralConfig.defaults(dataDir, url, user, ADMIN_TOKEN), Clock.systemUTC(),
        new SecureRandom(), System.out);
    this.api = new ApiClient(server.httpPort());
  }

  /** A central on its own embedded database. */
  static TestCentral h2() throws IOException {
    return new TestCentral(Files.createTempDirectory("central-xds-it-"), null, null);
  }

  /** A central on a PostgreSQL schema. */
  static TestCentral postgres(Schema schema) throws IOException {
    return new TestCentral(Files.createTempDirectory("central-xds-it-"), schema.url(), schema.user);
  }

  int xdsPort() {
    return server.xdsPort();
  }

  /** Registers an edge; returns its credential. */
  String register(String edgeId) {
    HttpResponse<String> response = send("POST", "/configuration/edges", "{\"id\": \"" + edgeId + "\", \"labels\": {}}");
    if (response.statusCode() != 201) {
      throw new AssertionError("register " + edgeId + ": " + response.statusCode() + " " + response.body());
    }
    return parse(response.body()).get("credential").asText();
  }

  /** PATCHes the edge's policies; must answer 200. */
  JsonNode patch(String edgeId, String body) {
    HttpResponse<String> response = send("PATCH", "/configuration/edges/policies?edgeId=" + edgeId, body);
    if (response.statusCode() != 200) {
      throw new AssertionError("PATCH " + edgeId + ": " + response.statusCode() + " " + response.body());
    }
    return parse(response.body());
  }

  /** The edge's record, with its status. */
  JsonNode edge(String edgeId) {
    HttpResponse<String> response = send("GET", "/configuration/edges/" + edgeId, null);
    if (response.statusCode() != 200) {
      throw new AssertionError("GET edge " + edgeId + ": " + response.statusCode() + " " + response.body());
    }
    return parse(response.body());
  }

  /** {@code /metrics}. */
  String metrics() {
    return send("GET", "/metrics", null).body();
  }

  HttpResponse<String> send(String method, String path, String body) {
    return api.send(method, path, ADMIN_TOKEN, body == null ? null : "application/json",
        body == null ? null : body.getBytes(java.nio.charset.StandardCharsets.UTF_8));
  }


  static JsonNode parse(String text) {
    try {
      return JSON.readTree(text);
    } catch (IOException e) {
      throw new AssertionError("not JSON: " + text, e);
    }
  }

  @Override
  public void close() throws IOException {
    server.close();
    try (Stream<Path> files = Files.walk(dataDir)) {
      for (Path path : files.sorted(Comparator.reverseOrder()).toList()) {
        Files.deleteIfExists(path);
      }
    }
  }
}
