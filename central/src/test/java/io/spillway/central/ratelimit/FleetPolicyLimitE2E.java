package io.spillway.central.ratelimit;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.spillway.central.CentralProcess;
import io.spillway.central.EdgeBootstraps;
import io.spillway.testkit.EdgeProcess;
import io.spillway.testkit.FreePorts;
import io.spillway.testkit.OriginServer;
import io.spillway.testkit.RedisServer;
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
import java.util.TreeMap;
import java.util.function.Predicate;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The policy's fleet-wide limit end to end: the packaged central, two packaged edges started with
 * {@code --redis-uri} to a redis-server of the test's own, and one {@code scope: fleet} limit
 * PATCHed into both edges' policies. The two edges' 200s add up to the limit's burst exactly; with
 * Redis stalled each edge answers after its timeout from its own bucket; with Redis killed each
 * edge limits on its own at once (counted); restarted, the edges count in it again.
 */
class FleetPolicyLimitE2E {

  private static final String TOKEN = "fleet-policy-e2e-admin-token-0123";
  private static final ObjectMapper JSON = new ObjectMapper();
  private static final Duration WAIT = Duration.ofSeconds(30);
  private static final int BURST = 10;

  @TempDir
  Path dir;

  private final HttpClient http = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1)
      .connectTimeout(Duration.ofSeconds(5)).build();

  private HttpResponse<String> call(String method, String url, String body) throws Exception {
    HttpRequest.Builder request = HttpRequest.newBuilder(URI.create(url)).timeout(Duration.ofSeconds(10))
        .method(method, body == null ? HttpRequest.BodyPublishers.noBody() : HttpRequest.BodyPublishers.ofString(body))
        .header("Authorization", "Bearer " + TOKEN);
    if (body != null) {
      request.header("Content-Type", "application/json");
    }
    return http.send(request.build(), HttpResponse.BodyHandlers.ofString());
  }

  /** The limit as an edge's /ratelimits shows it, or a missing node. */
  private JsonNode limit(EdgeProcess edge) throws Exception {
    for (JsonNode l : JSON.readTree(call("GET", edge.adminUri("/ratelimits").toString(), null).body()).path("limits")) {
      if (l.path("name").asText().equals("shared")) {
        return l;
      }
    }
    return JSON.missingNode();
  }

  private void await(String what, EdgeProcess edge, Predicate<JsonNode> condition) throws Exception {
    long deadline = System.nanoTime() + WAIT.toNanos();
    while (!condition.test(limit(edge))) {
      assertThat(System.nanoTime()).as("%s within %s: %s", what, WAIT, limit(edge)).isLessThan(deadline);
      Thread.sleep(20);
    }
  }

  /** {@code count} requests with {@code x-api-key: key}, alternating between the listeners; the statuses by code. */
  private Map<Integer, Integer> burst(List<Integer> listeners, String key, int count) throws Exception {
    Map<Integer, Integer> statuses = new TreeMap<>();
    for (int i = 0; i < count; i++) {
      HttpResponse<String> r = http.send(HttpRequest.newBuilder(URI.create("http://127.0.0.1:"
              + listeners.get(i % listeners.size()) + "/limited")).timeout(Duration.ofSeconds(10))
          .header("x-api-key", key).build(), HttpResponse.BodyHandlers.ofString());
      statuses.merge(r.statusCode(), 1, Integer::sum);
      if (r.statusCode() == 429) {
        assertThat(r.headers().firstValue("retry-after")).isPresent();
        assertThat(r.headers().firstValue("ratelimit-limit")).contains(Integer.toString(BURST));
      }
    }
    return statuses;
  }

  private long stat(EdgeProcess edge, String line) throws Exception {
    for (String l : call("GET", edge.adminUri("/stats/prometheus").toString(), null).body().split("\n")) {
      if (l.startsWith(line + " ")) {
        return (long) Double.parseDouble(l.substring(line.length() + 1).trim());
      }
    }
    return 0;
  }

  @Test
  void twoEdgesShareOneFleetLimitInRedisAndFallBackToTheirOwnWhileItIsStalledOrDown() throws Exception {
    Assumptions.assumeTrue(RedisServer.available() || System.getenv("CI") != null,
        "needs redis-server on the PATH (Debian package redis-server)");
    int xdsPort = FreePorts.pick();
    try (RedisServer redis = RedisServer.start(dir.resolve("redis"));
        OriginServer origin = OriginServer.start("backend");
        CentralProcess central = CentralProcess.start(dir, List.of("--data-dir", dir.resolve("data").toString(),
            "--xds-port", Integer.toString(xdsPort)), Map.of("SPILLWAY_ADMIN_TOKEN", TOKEN))) {
      String base = "http://127.0.0.1:" + central.port();
      List<EdgeProcess> edges = new ArrayList<>();
      List<Integer> listeners = new ArrayList<>();
      try {
        for (String id : List.of("edge-a", "edge-b")) {
          HttpResponse<String> registered = call("POST", base + "/configuration/edges", "{\"id\": \"" + id + "\", \"labels\": {}}");
          assertThat(registered.statusCode()).as(registered.body()).isEqualTo(201);
          String credential = JSON.readTree(registered.body()).path("credential").asText();
          int[] ports = FreePorts.pick(2);
          Path bootstrap = Files.writeString(dir.resolve(id + ".yaml"),
              EdgeBootstraps.adsClient(ports[0], id, xdsPort, credential) + EdgeBootstraps.staticProxy(ports[1], origin.port()));
          // A timeout far above a loaded machine's Redis round trip: the stall below is what trips it.
          edges.add(EdgeProcess.builder().bootstrap(bootstrap).adminPort(ports[0])
              .args("--redis-uri", redis.uri(), "--redis-timeout", "500", "--redis-key-prefix", "e2e:").start());
          listeners.add(ports[1]);
        }
        // Burst 10 and one request per 100 s after it: the counts cannot depend on this machine's speed.
        String policy = "{\"rateLimits\": {\"limits\": [{\"name\": \"shared\", \"key\": \"header:x-api-key\", "
            + "\"rate\": 0.01, \"burst\": " + BURST + ", \"mode\": \"enforce\", \"scope\": \"fleet\"}]}}";
        for (String id : List.of("edge-a", "edge-b")) {
          HttpResponse<String> patched = call("PATCH", base + "/configuration/edges/policies?edgeId=" + id, policy);
          assertThat(patched.statusCode()).as(patched.body()).isEqualTo(200);
        }
        for (EdgeProcess edge : edges) {
          await("the fleet limit on the edge", edge, l -> l.path("scope").asText().equals("fleet"));
        }

        // Shared: the two edges' 200s add up to the burst; each edge asked Redis for its 200s and its first 429 only.
        assertThat(burst(listeners, "alice", 30)).isEqualTo(Map.of(200, BURST, 429, 30 - BURST));
        assertThat(origin.requests()).hasSize(BURST);
        long calls = 0;
        for (EdgeProcess edge : edges) {
          calls += limit(edge).path("fleet").path("calls").asLong();
          assertThat(limit(edge).path("fleet").path("fallbacks").asLong()).isZero();
        }
        assertThat(calls).as("Redis round trips: 10 admitted + one refusal per edge, later refusals remembered")
            .isEqualTo(BURST + 2);

        // Stalled (SIGSTOP): each edge's first request waits its 500 ms timeout, then the edges count on their own.
        redis.pause();
        try {
          assertThat(burst(listeners, "bob", 4)).isEqualTo(Map.of(200, 4));
          for (EdgeProcess edge : edges) {
            assertThat(stat(edge, "http_ratelimit_fleet_fallback_total{limit=\"shared\",reason=\"timeout\"}"))
                .as("a timed-out call on %s", edge).isPositive();
          }
        } finally {
          redis.resume();
        }

        // Down: every edge limits on its own at once — each admits its own burst.
        redis.kill();
        assertThat(burst(listeners, "carol", 30)).isEqualTo(Map.of(200, 2 * BURST, 429, 30 - 2 * BURST));
        for (EdgeProcess edge : edges) {
          assertThat(limit(edge).path("fleet").path("fallbacks").asLong()).as("fallbacks on %s", edge).isGreaterThan(4);
        }

        // Restarted (empty): once both edges are reconnected and asking again, they share one count again.
        redis.restart();
        for (int i = 0; i < edges.size(); i++) {
          EdgeProcess edge = edges.get(i);
          long before = limit(edge).path("fleet").path("calls").asLong();
          long deadline = System.nanoTime() + WAIT.toNanos();
          int probe = 0;
          while (limit(edge).path("fleet").path("calls").asLong() == before) {
            assertThat(System.nanoTime()).as("%s asks Redis again within %s", edge, WAIT).isLessThan(deadline);
            burst(List.of(listeners.get(i)), "probe-" + i + "-" + probe++, 1);
            Thread.sleep(100);
          }
        }
        assertThat(burst(listeners, "dave", 30)).isEqualTo(Map.of(200, BURST, 429, 30 - BURST));
      } finally {
        edges.forEach(EdgeProcess::close);
      }
    }
  }
}
