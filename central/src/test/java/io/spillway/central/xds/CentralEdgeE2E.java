package io.spillway.central.xds;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.spillway.central.CentralProcess;
import io.spillway.central.EdgeBootstraps;
import io.spillway.testkit.EdgeProcess;
import io.spillway.testkit.FreePorts;
import io.spillway.testkit.OriginServer;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.function.Predicate;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The packaged central and the packaged edge as OS processes: the edge gets its overload policy
 * over ADS (State of the World, authenticated with the credential from its registration) and
 * serves traffic through its own static listener and cluster. A PATCH through central's API
 * changes the edge's inbound admission mode; killing central leaves the edge serving; a central
 * started again on the same data is found again.
 */
class CentralEdgeE2E {

  private static final Duration WAIT = Duration.ofSeconds(20);
  private static final ObjectMapper JSON = new ObjectMapper();
  private static final String TOKEN = "xds-e2e-admin-token-0123456789";

  @TempDir
  Path dir;

  private final HttpClient http = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1).connectTimeout(Duration.ofSeconds(5)).build();

  private HttpResponse<String> call(String method, String url, String body) throws Exception {
    HttpRequest.Builder request = HttpRequest.newBuilder(URI.create(url)).timeout(Duration.ofSeconds(10))
        .method(method, body == null ? HttpRequest.BodyPublishers.noBody() : HttpRequest.BodyPublishers.ofString(body));
    if (url.contains("/configuration/")) {
      request.header("Authorization", "Bearer " + TOKEN);
    }
    if (body != null) {
      request.header("Content-Type", "application/json");
    }
    return http.send(request.build(), HttpResponse.BodyHandlers.ofString());
  }

  private static String bootstrap(String edgeId, int adminPort, int listenerPort, int xdsPort, String credential, int origin) {
    return bootstrap(edgeId, adminPort, listenerPort, xdsPort, credential, origin, "GRPC");
  }

  private static String bootstrap(String edgeId, int adminPort, int listenerPort, int xdsPort, String credential, int origin,
      String apiType) {
    return dynamicBootstrap(edgeId, adminPort, xdsPort, credential, apiType)
        + EdgeBootstraps.staticProxy(listenerPort, origin);
  }

  /** The packaged central on {@code dir} with its xDS server on {@code xdsPort}. */
  private CentralProcess startCentral(int xdsPort, List<String> args, Map<String, String> env) throws Exception {
    List<String> all = new ArrayList<>(args);
    all.addAll(List.of("--xds-port", Integer.toString(xdsPort)));
    return CentralProcess.start(dir, all, env);
  }

  /** PUTs EDS cluster {@code name} (201) and registers one endpoint on 127.0.0.1:{@code port}. */
  private void putEdsCluster(String api, String target, String name, int port) throws Exception {
    assertThat(putYaml(api + "/resources/clusters/" + name + target, """
        name: %s
        type: EDS
        connect_timeout: 1s
        eds_cluster_config: {eds_config: {ads: {}, resource_api_version: V3}}
        """.formatted(name)).statusCode()).isEqualTo(201);
    assertThat(call("POST", api + "/clusters/" + name + "/endpoints" + target,
        "{\"address\": \"127.0.0.1\", \"port\": " + port + "}").statusCode()).isIn(200, 201);
  }

  /** PUTs route configuration "main" sending everything to {@code cluster}. */
  private HttpResponse<String> putRoute(String api, String target, String cluster) throws Exception {
    return putYaml(api + "/resources/routes/main" + target, """
        name: main
        virtual_hosts:
        - name: all
          domains: ["*"]
          routes: [{match: {prefix: /}, route: {cluster: %s}}]
        """.formatted(cluster));
  }

  private String admissionMode(EdgeProcess edge) throws Exception {
    HttpResponse<String> response = call("GET", edge.adminUri("/overload").toString(), null);
    return JSON.readTree(response.body()).path("admission").path("mode").asText();
  }

  /** Polls the edge's /overload every {@code pollMillis} until it shows {@code mode}; fails WAIT after {@code since}. */
  private void awaitMode(EdgeProcess edge, String mode, long since, long pollMillis) throws Exception {
    long deadline = since + WAIT.toNanos();
    String seen;
    while (!(seen = admissionMode(edge)).equals(mode)) {
      assertThat(System.nanoTime()).as("edge admission mode %s within %s (still %s)", mode, WAIT, seen).isLessThan(deadline);
      Thread.sleep(pollMillis);
    }
  }

  private JsonNode awaitEdgeStatus(int centralPort, String edgeId, Predicate<JsonNode> condition) throws Exception {
    long deadline = System.nanoTime() + WAIT.toNanos();
    while (true) {
      JsonNode status = JSON.readTree(call("GET", "http://127.0.0.1:" + centralPort + "/configuration/edges/" + edgeId, null).body())
          .path("status");
      if (condition.test(status)) {
        return status;
      }
      if (System.nanoTime() > deadline) {
        throw new AssertionError("edge status never matched: " + status);
      }
      Thread.sleep(50);
    }
  }

  /** The limit {@code name} as the edge's /ratelimits shows it, or a missing node. */
  private JsonNode rateLimit(EdgeProcess edge, String name) throws Exception {
    for (JsonNode limit : JSON.readTree(call("GET", edge.adminUri("/ratelimits").toString(), null).body()).path("limits")) {
      if (limit.path("name").asText().equals(name)) {
        return limit;
      }
    }
    return JSON.missingNode();
  }

  private void awaitRateLimitMode(EdgeProcess edge, String name, String mode) throws Exception {
    long deadline = System.nanoTime() + WAIT.toNanos();
    while (!rateLimit(edge, name).path("mode").asText().equals(mode)) {
      assertThat(System.nanoTime()).as("limit %s in %s on the edge within %s", name, mode, WAIT).isLessThan(deadline);
      Thread.sleep(5);
    }
  }

  /** Sends {@code count} requests with {@code x-api-key: key}; the statuses by code, and every 429 checked. */
  private Map<Integer, Integer> burst(int listenerPort, String key, int count) throws Exception {
    Map<Integer, Integer> statuses = new java.util.TreeMap<>();
    for (int i = 0; i < count; i++) {
      HttpResponse<String> response = http.send(HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + listenerPort + "/limited"))
          .timeout(Duration.ofSeconds(10)).header("x-api-key", key).build(), HttpResponse.BodyHandlers.ofString());
      statuses.merge(response.statusCode(), 1, Integer::sum);
      if (response.statusCode() == 429) {
        assertThat(response.headers().firstValue("retry-after")).as("Retry-After").isPresent();
        assertThat(Long.parseLong(response.headers().firstValue("retry-after").get())).isPositive();
        assertThat(response.headers().firstValue("ratelimit-limit")).contains("5");
        assertThat(response.headers().firstValue("ratelimit-remaining")).contains("0");
        assertThat(response.headers().firstValue("ratelimit-reset")).isPresent();
      }
    }
    return statuses;
  }

  @Test
  void rateLimitsPatchedInCentralAreEnforcedPerKeyByTheRealEdge() throws Exception {
    int[] ports = FreePorts.pick(3);
    int listenerPort = ports[0];
    int adminPort = ports[1];
    int xdsPort = ports[2];
    Path data = Files.createDirectories(dir.resolve("central-data"));
    try (OriginServer origin = OriginServer.start("backend");
        CentralProcess central = startCentral(xdsPort, List.of("--data-dir", data.toString()), Map.of("SPILLWAY_ADMIN_TOKEN", TOKEN))) {
      String base = "http://127.0.0.1:" + central.port();
      HttpResponse<String> registered = call("POST", base + "/configuration/edges", "{\"id\": \"edge-rl\", \"labels\": {}}");
      assertThat(registered.statusCode()).as(registered.body()).isEqualTo(201);
      String credential = JSON.readTree(registered.body()).path("credential").asText();
      Path bootstrap = dir.resolve("edge-rl.yaml");
      Files.writeString(bootstrap, bootstrap("edge-rl", adminPort, listenerPort, xdsPort, credential, origin.port()));
      try (EdgeProcess edge = EdgeProcess.builder().bootstrap(bootstrap).adminPort(adminPort).start()) {
        awaitEdgeStatus(central.port(), "edge-rl", s -> s.path("connected").asBoolean()
            && s.path("ackedVersions").has(XdsType.OVERLOAD_POLICY.typeUrl()));
        // Burst 5, and a refill far slower than the burst takes (one token per 100 s): the counts
        // cannot depend on how fast this machine sends the 20 requests.
        String limit = "{\"name\": \"per-key\", \"key\": \"header:x-api-key\", \"rate\": 0.01, \"burst\": 5, \"mode\": \"%s\"}";
        HttpResponse<String> patched = call("PATCH", base + "/configuration/edges/policies?edgeId=edge-rl",
            "{\"rateLimits\": {\"limits\": [" + limit.formatted("enforce") + "]}}");
        assertThat(patched.statusCode()).as(patched.body()).isEqualTo(200);
        awaitRateLimitMode(edge, "per-key", "enforce");

        assertThat(burst(listenerPort, "alice", 20)).isEqualTo(Map.of(200, 5, 429, 15));
        assertThat(burst(listenerPort, "bob", 1)).as("another key is unaffected").isEqualTo(Map.of(200, 1));
        JsonNode enforced = rateLimit(edge, "per-key");
        assertThat(enforced.path("keys_tracked").asInt()).isEqualTo(2);
        assertThat(enforced.path("checked").asLong()).isEqualTo(21);
        assertThat(enforced.path("refused").path("enforce").asLong()).isEqualTo(15);

        // Shadow: everything goes through, the would-be refusals are counted.
        patched = call("PATCH", base + "/configuration/edges/policies?edgeId=edge-rl",
            "{\"expectedRevisions\": {\"rateLimits\": 1}, \"rateLimits\": {\"limits\": [" + limit.formatted("shadow") + "]}}");
        assertThat(patched.statusCode()).as(patched.body()).isEqualTo(200);
        awaitRateLimitMode(edge, "per-key", "shadow");
        assertThat(burst(listenerPort, "carol", 20)).isEqualTo(Map.of(200, 20));
        assertThat(rateLimit(edge, "per-key").path("refused").path("shadow").asLong()).isEqualTo(15);
        String prometheus = call("GET", edge.adminUri("/stats/prometheus").toString(), null).body();
        assertThat(prometheus).contains("http_ratelimit_refused_total{limit=\"per-key\",mode=\"shadow\"} 15")
            .contains("http_ratelimit_refused_total{limit=\"per-key\",mode=\"enforce\"} 15")
            .contains("http_ratelimit_checked_total{limit=\"per-key\"} 41");

        // Deleted: no limits on the edge.
        assertThat(call("PATCH", base + "/configuration/edges/policies?edgeId=edge-rl", "{\"rateLimits\": null}").statusCode())
            .isEqualTo(200);
        long deadline = System.nanoTime() + WAIT.toNanos();
        while (!rateLimit(edge, "per-key").isMissingNode()) {
          assertThat(System.nanoTime()).as("limit removed within %s", WAIT).isLessThan(deadline);
          Thread.sleep(5);
        }
        assertThat(burst(listenerPort, "alice", 3)).isEqualTo(Map.of(200, 3));
      }
    }
  }

  private static List<String> lines(Path file) throws Exception {
    return Files.exists(file) ? Files.readAllLines(file) : List.of();
  }

  private void awaitLines(Path file, int count) throws Exception {
    long deadline = System.nanoTime() + WAIT.toNanos();
    while (lines(file).size() < count) {
      assertThat(System.nanoTime()).as("%d lines in %s within %s", count, file, WAIT).isLessThan(deadline);
      Thread.sleep(10);
    }
  }

  private void awaitConfigDump(EdgeProcess edge, Predicate<String> condition, String what) throws Exception {
    long deadline = System.nanoTime() + WAIT.toNanos();
    while (!condition.test(call("GET", edge.adminUri("/config_dump").toString(), null).body())) {
      assertThat(System.nanoTime()).as("%s in /config_dump within %s", what, WAIT).isLessThan(deadline);
      Thread.sleep(10);
    }
  }

  private void get(int listenerPort, String path, int count) throws Exception {
    for (int i = 0; i < count; i++) {
      HttpResponse<String> response = http.send(HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + listenerPort + path + i))
          .timeout(Duration.ofSeconds(10)).build(), HttpResponse.BodyHandlers.ofString());
      assertThat(response.statusCode()).isEqualTo(200);
    }
  }

  @Test
  void anAccessLogPatchedInCentralIsWrittenByTheRealEdgeBesideItsBootstrapOnesAndRemovedOnNull() throws Exception {
    int[] ports = FreePorts.pick(3);
    int listenerPort = ports[0];
    int adminPort = ports[1];
    int xdsPort = ports[2];
    Path data = Files.createDirectories(dir.resolve("central-data"));
    Path logs = dir.resolve("edge-logs");
    try (OriginServer origin = OriginServer.start("backend");
        CentralProcess central = startCentral(xdsPort, List.of("--data-dir", data.toString()), Map.of("SPILLWAY_ADMIN_TOKEN", TOKEN))) {
      String base = "http://127.0.0.1:" + central.port();
      HttpResponse<String> registered = call("POST", base + "/configuration/edges", "{\"id\": \"edge-al\", \"labels\": {}}");
      assertThat(registered.statusCode()).as(registered.body()).isEqualTo(201);
      String credential = JSON.readTree(registered.body()).path("credential").asText();
      Path bootstrap = dir.resolve("edge-al.yaml");
      Path bootstrapLog = dir.resolve("bootstrap.log");
      String accessLog = """
                            stat_prefix: main
                            access_log:
                            - name: envoy.access_loggers.file
                              typed_config:
                                "@type": type.googleapis.com/envoy.extensions.access_loggers.file.v3.FileAccessLog
                                path: %s
                                log_format: {text_format_source: {inline_string: "boot %%REQ(:PATH)%%\\n"}}
                  """.formatted(bootstrapLog);
      Files.writeString(bootstrap, bootstrap("edge-al", adminPort, listenerPort, xdsPort, credential, origin.port())
          .replace("          stat_prefix: main\n", accessLog));
      try (EdgeProcess edge = EdgeProcess.builder().bootstrap(bootstrap).adminPort(adminPort)
          .args("--access-log-dir", logs.toString(), "--file-flush-interval-msec", "50").start()) {
        awaitEdgeStatus(central.port(), "edge-al", s -> s.path("connected").asBoolean()
            && s.path("ackedVersions").has(XdsType.OVERLOAD_POLICY.typeUrl()));
        get(listenerPort, "/before/", 2); // no access log yet

        HttpResponse<String> patched = call("PATCH", base + "/configuration/edges/policies?edgeId=edge-al",
            "{\"accessLog\": {\"format\": \"central %REQ(:METHOD)% %REQ(:PATH)% %RESPONSE_CODE%\", "
                + "\"filters\": {\"statusCode\": {\"op\": \"<=\", \"value\": 299}}, "
                + "\"destination\": {\"file\": \"central/access.log\"}}}");
        assertThat(patched.statusCode()).as(patched.body()).isEqualTo(200);
        awaitConfigDump(edge, body -> body.contains("\"destination_file\": \"central/access.log\""), "the access log");
        Path file = logs.resolve("central/access.log");
        assertThat(file).exists();

        int requests = 25;
        get(listenerPort, "/logged/", requests);
        awaitLines(file, requests);
        List<String> expected = new ArrayList<>();
        for (int i = 0; i < requests; i++) {
          expected.add("central GET /logged/" + i + " 200");
        }
        assertThat(lines(file)).as("exactly one line per request, in the format").isEqualTo(expected);

        assertThat(call("PATCH", base + "/configuration/edges/policies?edgeId=edge-al", "{\"accessLog\": null}").statusCode())
            .isEqualTo(200);
        awaitConfigDump(edge, body -> !body.contains("destination_file"), "no access log");
        get(listenerPort, "/after/", 5);
        Thread.sleep(500); // ten flush intervals: a line would have been written by now
        assertThat(lines(file)).as("no more lines once the section is deleted").isEqualTo(expected);
        awaitLines(bootstrapLog, 2 + requests + 5);
        assertThat(lines(bootstrapLog)).as("the bootstrap's access log stays, central's is beside it")
            .hasSize(2 + requests + 5).startsWith("boot /before/0").endsWith("boot /after/4");
      }
    }
  }

  @Test
  void policyPatchReachesTheRealEdgeWhichOutlivesCentral() throws Exception {
    int[] ports = FreePorts.pick(3);
    int listenerPort = ports[0];
    int adminPort = ports[1];
    int xdsPort = ports[2];
    Path data = Files.createDirectories(dir.resolve("central-data"));
    Map<String, String> env = Map.of("SPILLWAY_ADMIN_TOKEN", TOKEN);
    List<String> args = List.of("--data-dir", data.toString());
    try (OriginServer origin = OriginServer.start("backend")) {
      CentralProcess central = startCentral(xdsPort, args, env);
      try {
        String base = "http://127.0.0.1:" + central.port();
        HttpResponse<String> registered = call("POST", base + "/configuration/edges", "{\"id\": \"edge-e2e\", \"labels\": {}}");
        assertThat(registered.statusCode()).as(registered.body()).isEqualTo(201);
        String credential = JSON.readTree(registered.body()).path("credential").asText();
        Path bootstrap = dir.resolve("edge.yaml");
        Files.writeString(bootstrap, bootstrap("edge-e2e", adminPort, listenerPort, xdsPort, credential, origin.port()));
        try (EdgeProcess edge = EdgeProcess.builder().bootstrap(bootstrap).adminPort(adminPort)
            .args("--xds-state-dir", Files.createDirectories(dir.resolve("edge-state")).toString(),
                "--report-interval", "0.2").start()) {
          String through = "http://127.0.0.1:" + listenerPort + "/hello";
          assertThat(call("GET", through, null).statusCode()).isEqualTo(200);
          awaitEdgeStatus(central.port(), "edge-e2e", s -> s.path("connected").asBoolean()
              && s.path("ackedVersions").has(XdsType.OVERLOAD_POLICY.typeUrl()));

          // The edge reports its gauges over the ADS channel; central serves them as points.
          JsonNode reported = awaitMetrics(central.port(), "edge-e2e", m -> m.path("points").size() >= 2);
          assertThat(reported.path("intervalSeconds").asDouble()).isEqualTo(0.2);
          JsonNode point = reported.path("points").get(reported.path("points").size() - 1);
          assertThat(point.path("limit").asInt()).isPositive();
          assertThat(point.path("mode").asText()).isEqualTo(admissionMode(edge));
          assertThat(point.at("/peers/backend/breaker").asText()).isEqualTo("closed");
          assertThat(point.at("/refused/enforce").has("proxy")).isTrue();

          // PATCH inbound mode → the edge's admission mode follows; measure PATCH sent → seen on the admin page.
          List<Double> millis = new ArrayList<>();
          List<Double> afterAnswer = new ArrayList<>();
          for (int i = 0; i < 20; i++) {
            String mode = i % 2 == 0 ? "enforce" : "shadow";
            long started = System.nanoTime();
            HttpResponse<String> patched = call("PATCH", base + "/configuration/edges/policies?edgeId=edge-e2e",
                "{\"overload\": {\"inbound\": {\"mode\": \"" + mode + "\"}}}");
            assertThat(patched.statusCode()).as(patched.body()).isEqualTo(200);
            long answered = System.nanoTime();
            awaitMode(edge, mode, started, 1);
            long seen = System.nanoTime();
            millis.add((seen - started) / 1e6);
            afterAnswer.add((seen - answered) / 1e6);
          }
          System.out.println("real edge: PATCH sent -> /overload shows the new mode (polled every ~1 ms): "
              + AdsServerIT.distribution(millis) + "; of which after the PATCH was answered: " + AdsServerIT.distribution(afterAnswer));
          call("PATCH", base + "/configuration/edges/policies?edgeId=edge-e2e", "{\"overload\": {\"inbound\": {\"mode\": \"enforce\"}}}");
          awaitMode(edge, "enforce", System.nanoTime(), 5);
          assertThat(call("GET", edge.adminUri("/overload").toString(), null).body()).contains("\"mode\" : \"enforce\"");

          // Central killed: the edge keeps serving, with the policy it has.
          central.kill();
          for (int i = 0; i < 20; i++) {
            assertThat(call("GET", through, null).statusCode()).isEqualTo(200);
          }
          assertThat(admissionMode(edge)).isEqualTo("enforce");
          assertThat(edge.isAlive()).isTrue();

          // Central back on the same data and port: the edge reconnects and is shown connected again.
          central = startCentral(xdsPort, args, env);
          awaitEdgeStatus(central.port(), "edge-e2e", s -> s.path("connected").asBoolean());
          call("PATCH", "http://127.0.0.1:" + central.port() + "/configuration/edges/policies?edgeId=edge-e2e",
              "{\"overload\": {\"inbound\": {\"mode\": \"off\"}}}");
          awaitMode(edge, "off", System.nanoTime(), 5);
          assertThat(call("GET", through, null).statusCode()).isEqualTo(200);

          // The reports follow the edge to the restarted central; enforce with a limit of one: refusals show up.
          int port = central.port();
          awaitMetrics(port, "edge-e2e", m -> m.path("points").size() >= 1);
          call("PATCH", "http://127.0.0.1:" + port + "/configuration/edges/policies?edgeId=edge-e2e",
              "{\"overload\": {\"inbound\": {\"mode\": \"enforce\", \"maxInFlight\": 1,"
                  + " \"adaptive\": {\"minLimit\": 1, \"maxLimit\": 1}}}}");
          awaitMode(edge, "enforce", System.nanoTime(), 5);
          List<java.util.concurrent.CompletableFuture<HttpResponse<String>>> burst = new ArrayList<>();
          for (int i = 0; i < 8; i++) {
            burst.add(http.sendAsync(HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + listenerPort + "/delay/2000"))
                .timeout(Duration.ofSeconds(10)).build(), HttpResponse.BodyHandlers.ofString()));
          }
          long refused = 0;
          for (var response : burst) {
            refused += response.get(10, java.util.concurrent.TimeUnit.SECONDS).statusCode() == 503 ? 1 : 0;
          }
          assertThat(refused).isPositive();
          long expected = refused;
          awaitMetrics(port, "edge-e2e", m -> refusedEnforceProxy(m) >= expected);
        }
      } finally {
        central.close();
      }
    }
  }

  /** Polls central's {@code /configuration/edges/{id}/metrics} until it matches; fails after WAIT. */
  private JsonNode awaitMetrics(int centralPort, String edgeId, Predicate<JsonNode> condition) throws Exception {
    long deadline = System.nanoTime() + WAIT.toNanos();
    while (true) {
      HttpResponse<String> response = call("GET", "http://127.0.0.1:" + centralPort + "/configuration/edges/" + edgeId
          + "/metrics", null);
      assertThat(response.statusCode()).as(response.body()).isEqualTo(200);
      JsonNode metrics = JSON.readTree(response.body());
      if (condition.test(metrics)) {
        return metrics;
      }
      if (System.nanoTime() > deadline) {
        throw new AssertionError("the edge's reported metrics never matched: " + metrics);
      }
      Thread.sleep(50);
    }
  }

  /** The enforce refusals of the proxy tier over every point of the window. */
  private static long refusedEnforceProxy(JsonNode metrics) {
    long sum = 0;
    for (JsonNode point : metrics.path("points")) {
      sum += point.at("/refused/enforce/proxy").asLong();
    }
    return sum;
  }

  @Test
  void policyBrokenInTheDatabaseIsNackedShownAndHarmless() throws Exception {
    int[] ports = FreePorts.pick(3);
    int listenerPort = ports[0];
    int adminPort = ports[1];
    int xdsPort = ports[2];
    try (TestCentral.Schema schema = new TestCentral.Schema(); OriginServer origin = OriginServer.start("backend")) {
      List<String> args = List.of("--data-dir", Files.createDirectories(dir.resolve("pg-data")).toString(),
          "--database-url", schema.url(), "--database-user", schema.user);
      try (CentralProcess central = startCentral(xdsPort, args, Map.of("SPILLWAY_ADMIN_TOKEN", TOKEN))) {
        String base = "http://127.0.0.1:" + central.port();
        HttpResponse<String> registered = call("POST", base + "/configuration/edges", "{\"id\": \"edge-nack\", \"labels\": {}}");
        assertThat(registered.statusCode()).as(registered.body()).isEqualTo(201);
        String credential = JSON.readTree(registered.body()).path("credential").asText();
        Path bootstrap = dir.resolve("edge-nack.yaml");
        Files.writeString(bootstrap, bootstrap("edge-nack", adminPort, listenerPort, xdsPort, credential, origin.port()));
        try (EdgeProcess edge = EdgeProcess.builder().bootstrap(bootstrap).adminPort(adminPort).start()) {
          String through = "http://127.0.0.1:" + listenerPort + "/hello";
          HttpResponse<String> patched = call("PATCH", base + "/configuration/edges/policies?edgeId=edge-nack",
              "{\"overload\": {\"inbound\": {\"mode\": \"shadow\"}}}");
          assertThat(patched.statusCode()).as(patched.body()).isEqualTo(200);
          awaitMode(edge, "shadow", System.nanoTime(), 5);
          // Past the API's validation: straight into the database, then the notification a replica would send.
          try (java.sql.Connection c = java.sql.DriverManager.getConnection(schema.url(), schema.user, null)) {
            try (java.sql.PreparedStatement s = c.prepareStatement(
                "UPDATE edge_policies SET body = ?, revision = revision + 1 WHERE edge_id = ? AND section = 'overload'")) {
              s.setString(1, "{\"inbound\": {\"mode\": \"enforce\", \"retryAfterSeconds\": 600}}");
              s.setString(2, "edge-nack");
              assertThat(s.executeUpdate()).isEqualTo(1);
            }
            try (java.sql.PreparedStatement s = c.prepareStatement("SELECT pg_notify(?, ?)")) {
              s.setString(1, PostgresChangeBus.CHANNEL);
              s.setString(2, "another-replica edge-nack");
              s.execute();
            }
          }
          JsonNode status = awaitEdgeStatus(central.port(), "edge-nack", st -> !st.path("lastNack").isNull()
              && !st.path("lastNack").isMissingNode());
          assertThat(status.path("lastNack").path("type").asText()).isEqualTo(XdsType.OVERLOAD_POLICY.typeUrl());
          assertThat(status.path("lastNack").path("version").asText()).isEqualTo("2");
          assertThat(status.path("lastNack").path("error").asText()).contains("retryAfterSeconds");
          // The edge kept the policy it had, and traffic is unaffected.
          assertThat(admissionMode(edge)).isEqualTo("shadow");
          for (int i = 0; i < 10; i++) {
            assertThat(call("GET", through, null).statusCode()).isEqualTo(200);
          }
          assertThat(call("GET", base + "/metrics", null).body()).contains("central_xds_nacks_total{type=\"policy\"} 1.0");
        }
      }
    }
  }

  @Test
  void deltaEdgeFollowsPolicyChanges() throws Exception {
    int[] ports = FreePorts.pick(3);
    Path data = Files.createDirectories(dir.resolve("delta-data"));
    try (OriginServer origin = OriginServer.start("backend");
        CentralProcess central = startCentral(ports[2], List.of("--data-dir", data.toString()), Map.of("SPILLWAY_ADMIN_TOKEN", TOKEN))) {
      String base = "http://127.0.0.1:" + central.port();
      HttpResponse<String> registered = call("POST", base + "/configuration/edges", "{\"id\": \"edge-delta\", \"labels\": {}}");
      String credential = JSON.readTree(registered.body()).path("credential").asText();
      Path bootstrap = dir.resolve("edge-delta.yaml");
      Files.writeString(bootstrap, bootstrap("edge-delta", ports[1], ports[0], ports[2], credential, origin.port(), "DELTA_GRPC"));
      try (EdgeProcess edge = EdgeProcess.builder().bootstrap(bootstrap).adminPort(ports[1]).start()) {
        for (String mode : List.of("enforce", "shadow", "off", "enforce")) {
          HttpResponse<String> patched = call("PATCH", base + "/configuration/edges/policies?edgeId=edge-delta",
              "{\"overload\": {\"inbound\": {\"mode\": \"" + mode + "\"}}}");
          assertThat(patched.statusCode()).as(patched.body()).isEqualTo(200);
          awaitMode(edge, mode, System.nanoTime(), 2);
        }
        assertThat(call("GET", "http://127.0.0.1:" + ports[0] + "/hello", null).statusCode()).isEqualTo(200);
      }
    }
  }

  /**
   * The edge's admin listener and its ADS stream to central (api_type GRPC or DELTA_GRPC); with
   * nothing else, its whole proxy configuration comes from central.
   */
  private static String dynamicBootstrap(String edgeId, int adminPort, int xdsPort, String credential, String apiType) {
    return """
        admin:
          address: {socket_address: {address: 127.0.0.1, port_value: %d}}
        node: {id: %s, cluster: edges}
        dynamic_resources:
          ads_config:
            api_type: %s
            transport_api_version: V3
            set_node_on_first_message_only: true
            grpc_services:
            - google_grpc: {target_uri: "127.0.0.1:%d", stat_prefix: central}
              initial_metadata: [{key: authorization, value: "Bearer %s"}]
          cds_config: {ads: {}, resource_api_version: V3, initial_fetch_timeout: 5s}
          lds_config: {ads: {}, resource_api_version: V3, initial_fetch_timeout: 5s}
        """.formatted(adminPort, edgeId, apiType, xdsPort, credential);
  }

  private HttpResponse<String> putYaml(String url, String yaml) throws Exception {
    return http.send(HttpRequest.newBuilder(URI.create(url)).timeout(Duration.ofSeconds(10))
        .header("Authorization", "Bearer " + TOKEN).header("Content-Type", "application/yaml")
        .PUT(HttpRequest.BodyPublishers.ofString(yaml)).build(), HttpResponse.BodyHandlers.ofString());
  }

  private String originThrough(int port) throws Exception {
    try {
      HttpResponse<String> r = call("GET", "http://127.0.0.1:" + port + "/x", null);
      return r.headers().firstValue("x-origin").orElse("status " + r.statusCode());
    } catch (java.io.IOException e) {
      return "no answer";
    }
  }

  private void awaitOrigin(int port, String name) throws Exception {
    long deadline = System.nanoTime() + WAIT.toNanos();
    String seen = originThrough(port);
    while (!seen.equals(name)) {
      assertThat(System.nanoTime()).as("traffic reaches %s (last: %s)", name, seen).isLessThan(deadline);
      Thread.sleep(1);
      seen = originThrough(port);
    }
  }

  @Test
  void listenersRoutesClustersAndEndpointsFromCentralCarryTheEdgesTraffic() throws Exception {
    int[] ports = FreePorts.pick(3);
    int listenerPort = ports[0];
    int adminPort = ports[1];
    int xdsPort = ports[2];
    Path data = Files.createDirectories(dir.resolve("resources-data"));
    Path state = Files.createDirectories(dir.resolve("resources-edge-state"));
    Map<String, String> env = Map.of("SPILLWAY_ADMIN_TOKEN", TOKEN);
    try (OriginServer a = OriginServer.start("a"); OriginServer b = OriginServer.start("b")) {
      CentralProcess central = startCentral(xdsPort, List.of("--data-dir", data.toString()), env);
      try {
        String base = "http://127.0.0.1:" + central.port();
        HttpResponse<String> registered = call("POST", base + "/configuration/edges", "{\"id\": \"edge-res\", \"labels\": {}}");
        assertThat(registered.statusCode()).as(registered.body()).isEqualTo(201);
        String credential = JSON.readTree(registered.body()).path("credential").asText();
        String q = "?edgeId=edge-res";
        putEdsCluster(base + "/configuration", q, "backend", a.port());
        assertThat(putRoute(base + "/configuration", q, "backend").statusCode()).isEqualTo(201);
        HttpResponse<String> listener = putYaml(base + "/configuration/resources/listeners/ingress" + q, """
            name: ingress
            address: {socket_address: {address: 127.0.0.1, port_value: %d}}
            filter_chains:
            - filters:
              - name: envoy.filters.network.http_connection_manager
                typed_config:
                  "@type": type.googleapis.com/envoy.extensions.filters.network.http_connection_manager.v3.HttpConnectionManager
                  stat_prefix: ingress
                  rds: {route_config_name: main, config_source: {ads: {}, resource_api_version: V3}}
                  http_filters: [{name: envoy.filters.http.router}]
            """.formatted(listenerPort));
        assertThat(listener.statusCode()).as(listener.body()).isEqualTo(201);

        Path bootstrap = dir.resolve("edge-res.yaml");
        Files.writeString(bootstrap, dynamicBootstrap("edge-res", adminPort, xdsPort, credential, "GRPC"));
        try (EdgeProcess edge = EdgeProcess.builder().bootstrap(bootstrap).adminPort(adminPort)
            .args("--xds-state-dir", state.toString()).start()) {
          awaitOrigin(listenerPort, "a");

          // A deploy tool moves the backend: register b, deregister a; traffic follows.
          List<Double> millis = new ArrayList<>();
          for (int i = 0; i < 10; i++) {
            OriginServer to = i % 2 == 0 ? b : a;
            OriginServer from = i % 2 == 0 ? a : b;
            long started = System.nanoTime();
            assertThat(call("POST", base + "/configuration/clusters/backend/endpoints" + q,
                "{\"address\": \"127.0.0.1\", \"port\": " + to.port() + "}").statusCode()).isIn(200, 201);
            assertThat(call("DELETE", base + "/configuration/clusters/backend/endpoints/127.0.0.1:" + from.port() + q,
                null).statusCode()).isIn(200, 204);
            awaitOrigin(listenerPort, to.name());
            millis.add((System.nanoTime() - started) / 1e6);
          }
          System.out.println("real edge, endpoints moved through central's API -> traffic follows: "
              + AdsServerIT.distribution(millis));
          // Make-before-break: a new cluster, its endpoint and the route moving to it, sent back to
          // back while traffic flows. The route must not reach the edge before the cluster it names
          // has its endpoints: no request may see a 503 in between.
          java.util.concurrent.atomic.AtomicBoolean polling = new java.util.concurrent.atomic.AtomicBoolean(true);
          java.util.concurrent.ConcurrentHashMap<String, Integer> seen = new java.util.concurrent.ConcurrentHashMap<>();
          Thread poller = new Thread(() -> {
            long stop = System.nanoTime() + WAIT.toNanos();
            while (polling.get() && System.nanoTime() < stop) {
              try {
                seen.merge(originThrough(listenerPort), 1, Integer::sum);
              } catch (Exception e) {
                seen.merge("error", 1, Integer::sum);
              }
            }
          });
          poller.start();
          Thread.sleep(100);
          putEdsCluster(base + "/configuration", q, "other", b.port());
          assertThat(putRoute(base + "/configuration", q, "other").statusCode()).isEqualTo(200);
          awaitOrigin(listenerPort, "b");
          Thread.sleep(100);
          polling.set(false);
          poller.join();
          assertThat(seen.keySet()).as("every answer during the move came from a backend: %s", seen)
              .allMatch(k -> k.equals("a") || k.equals("b"));
          String now = originThrough(listenerPort);

          // A listener the edge cannot take never reaches it: central refuses it with the edge's own rule.
          HttpResponse<String> bad = putYaml(base + "/configuration/resources/clusters/backend" + q, """
              name: backend
              type: EDS
              lb_policy: CLUSTER_PROVIDED
              eds_cluster_config: {eds_config: {ads: {}}}
              """);
          assertThat(bad.statusCode()).isEqualTo(400);
          assertThat(bad.body()).contains("cluster \\\"backend\\\".lb_policy: CLUSTER_PROVIDED is not supported");
          assertThat(originThrough(listenerPort)).isEqualTo(now);

          // Central gone, then the edge restarted: it serves from its last-known-good state.
          central.kill();
          edge.close();
          try (EdgeProcess again = EdgeProcess.builder().bootstrap(bootstrap).adminPort(adminPort)
              .args("--xds-state-dir", state.toString()).start()) {
            awaitOrigin(listenerPort, now);
            assertThat(call("GET", again.adminUri("/xds").toString(), null).body())
                .contains("\"from_last_known_good\" : true");
          }
        }
      } finally {
        central.close();
      }
    }
  }
}
