package io.spillway.central.ratelimit;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.ObjectMapper;
import io.lettuce.core.RedisClient;
import io.lettuce.core.ScanArgs;
import io.lettuce.core.ScanIterator;
import io.lettuce.core.api.StatefulRedisConnection;
import io.spillway.central.CentralProcess;
import io.spillway.testkit.EdgeProcess;
import io.spillway.testkit.RedisRequired;
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
import java.util.HexFormat;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ThreadLocalRandom;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.io.TempDir;

/**
 * Two packaged edges as OS processes, each with Envoy's {@code envoy.filters.http.ratelimit} filter
 * pointed at the packaged central's rate limit service (its xDS port, the edge's credential in
 * {@code initial_metadata}), sharing one per-minute limit counted in the real Redis: the 200s of
 * both edges add up to the limit, the rest are 429s with {@code x-envoy-ratelimited}.
 */
@ExtendWith(RedisRequired.class)
class FleetRateLimitE2E {

  private static final String TOKEN = "rls-e2e-admin-token-0123456789";
  private static final ObjectMapper JSON = new ObjectMapper();
  private static final int LIMIT = 12;

  @TempDir
  Path dir;

  private final HttpClient http = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1)
      .connectTimeout(Duration.ofSeconds(5)).build();

  private HttpResponse<String> call(String method, String url, String body) throws Exception {
    HttpRequest.Builder request = HttpRequest.newBuilder(URI.create(url)).timeout(Duration.ofSeconds(10))
        .method(method, body == null ? HttpRequest.BodyPublishers.noBody() : HttpRequest.BodyPublishers.ofString(body));
    if (url.contains("/configuration/") || url.endsWith("/metrics")) {
      request.header("Authorization", "Bearer " + TOKEN);
    }
    if (body != null) {
      request.header("Content-Type", "application/json");
    }
    return http.send(request.build(), HttpResponse.BodyHandlers.ofString());
  }

  private static String bootstrap(String edgeId, int adminPort, int listenerPort, int origin, int rlsPort, String credential) {
    return """
        admin:
          address: {socket_address: {address: 127.0.0.1, port_value: %d}}
        node: {id: %s, cluster: edges}
        static_resources:
          listeners:
          - name: main
            address: {socket_address: {address: 127.0.0.1, port_value: %d}}
            filter_chains:
            - filters:
              - name: envoy.filters.network.http_connection_manager
                typed_config:
                  "@type": type.googleapis.com/envoy.extensions.filters.network.http_connection_manager.v3.HttpConnectionManager
                  stat_prefix: main
                  route_config:
                    name: local
                    virtual_hosts:
                    - name: all
                      domains: ["*"]
                      routes:
                      - match: {prefix: "/"}
                        route:
                          cluster: backend
                          rate_limits: [{actions: [{generic_key: {descriptor_value: shared}}]}]
                  http_filters:
                  - name: envoy.filters.http.ratelimit
                    typed_config:
                      "@type": type.googleapis.com/envoy.extensions.filters.http.ratelimit.v3.RateLimit
                      domain: fleet
                      timeout: 2s
                      failure_mode_deny: true
                      rate_limit_service:
                        transport_api_version: V3
                        grpc_service:
                          envoy_grpc: {cluster_name: central_rls}
                          initial_metadata: [{key: authorization, value: "Bearer %s"}]
                  - name: envoy.filters.http.router
                    typed_config: {"@type": type.googleapis.com/envoy.extensions.filters.http.router.v3.Router}
          clusters:
          - name: backend
            type: STATIC
            load_assignment:
              cluster_name: backend
              endpoints: [{lb_endpoints: [{endpoint: {address: {socket_address: {address: 127.0.0.1, port_value: %d}}}}]}]
          - name: central_rls
            type: STATIC
            typed_extension_protocol_options:
              envoy.extensions.upstreams.http.v3.HttpProtocolOptions:
                "@type": type.googleapis.com/envoy.extensions.upstreams.http.v3.HttpProtocolOptions
                explicit_http_config: {http2_protocol_options: {}}
            load_assignment:
              cluster_name: central_rls
              endpoints: [{lb_endpoints: [{endpoint: {address: {socket_address: {address: 127.0.0.1, port_value: %d}}}}]}]
        """.formatted(adminPort, edgeId, listenerPort, credential, origin, rlsPort);
  }

  @Test
  void twoEdgesShareOneLimitThroughCentral() throws Exception {
    RedisRequired.check();
    String prefix = "rls-e2e-" + HexFormat.of().toHexDigits(ThreadLocalRandom.current().nextInt()) + ":";
    Path limits = Files.writeString(dir.resolve("limits.yaml"), """
        domain: fleet
        descriptors:
          - key: generic_key
            value: shared
            rate_limit: {unit: minute, requests_per_unit: %d}
        """.formatted(LIMIT));
    int xdsPort = FreePorts.pick();
    try (OriginServer origin = OriginServer.start("backend");
        CentralProcess central = CentralProcess.start(dir, List.of("--data-dir", dir.resolve("data").toString(),
            "--xds-port", Integer.toString(xdsPort), "--ratelimit-config", limits.toString(), "--redis-key-prefix", prefix,
            "--redis-timeout", "PT1S"), // the bound is not what this test is about: a loaded machine never trips it
            Map.of("SPILLWAY_ADMIN_TOKEN", TOKEN))) {
      String base = "http://127.0.0.1:" + central.port();
      List<EdgeProcess> edges = new ArrayList<>();
      List<Integer> listeners = new ArrayList<>();
      try {
        for (String id : List.of("edge-one", "edge-two")) {
          HttpResponse<String> registered = call("POST", base + "/configuration/edges", "{\"id\": \"" + id + "\", \"labels\": {}}");
          assertThat(registered.statusCode()).as(registered.body()).isEqualTo(201);
          String credential = JSON.readTree(registered.body()).path("credential").asText();
          int adminPort = FreePorts.pick();
          int listenerPort = FreePorts.pick();
          Path bootstrap = Files.writeString(dir.resolve(id + ".yaml"),
              bootstrap(id, adminPort, listenerPort, origin.port(), xdsPort, credential));
          edges.add(EdgeProcess.builder().bootstrap(bootstrap).adminPort(adminPort).start());
          listeners.add(listenerPort);
        }
        // the burst must fit in one minute's window: start it with at least 20 s of the window left
        long left = 60_000 - Math.floorMod(System.currentTimeMillis(), 60_000L);
        if (left < 20_000) {
          Thread.sleep(left + 50);
        }
        int ok = 0;
        int refused = 0;
        for (int i = 0; i < 10; i++) {
          for (int port : listeners) {
            HttpResponse<String> r = call("GET", "http://127.0.0.1:" + port + "/", null);
            if (r.statusCode() == 200) {
              ok++;
            } else {
              assertThat(r.statusCode()).as(r.body()).isEqualTo(429);
              assertThat(r.headers().firstValue("x-envoy-ratelimited")).hasValue("true");
              refused++;
            }
          }
        }
        assertThat(ok).as("200s across both edges").isEqualTo(LIMIT);
        assertThat(refused).isEqualTo(20 - LIMIT);
        assertThat(origin.requests()).hasSize(LIMIT);
        String metrics = call("GET", base + "/metrics", null).body();
        assertThat(metrics).contains("central_ratelimit_requests_total{code=\"ok\",domain=\"fleet\"} " + LIMIT)
            .contains("central_ratelimit_requests_total{code=\"over_limit\",domain=\"fleet\"} " + (20 - LIMIT));
      } finally {
        edges.forEach(EdgeProcess::close);
        deleteKeys(prefix);
      }
    }
  }

  private static void deleteKeys(String prefix) {
    RedisClient client = RedisClient.create("redis://127.0.0.1:6379");
    try (StatefulRedisConnection<String, String> c = client.connect()) {
      List<String> keys = new ArrayList<>();
      ScanIterator.scan(c.sync(), ScanArgs.Builder.matches(prefix + "*").limit(1000)).forEachRemaining(keys::add);
      if (!keys.isEmpty()) {
        c.sync().del(keys.toArray(new String[0]));
      }
    } finally {
      client.shutdown();
    }
  }
}
