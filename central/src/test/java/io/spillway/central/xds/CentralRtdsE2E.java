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
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * The packaged central drives the packaged edge's RTDS layer: the edge's bootstrap has a
 * {@code layered_runtime} whose {@code rtds_layer} names {@code edge-runtime} over ADS, and a static
 * listener whose route {@code /shift} is taken by the share {@code routing.traffic_shift.blue} of
 * requests (default 0 %, answered by the edge itself) and otherwise goes to the origin. A runtime
 * PUT through central's API shows on the edge's {@code /runtime} and moves the traffic, an update
 * moves it back, a layer the edge would refuse is 400 and changes nothing, and a DELETE empties
 * the layer. State of the World and Delta alike.
 */
class CentralRtdsE2E {

  private static final Duration WAIT = Duration.ofSeconds(20);
  private static final ObjectMapper JSON = new ObjectMapper();
  private static final String TOKEN = "rtds-e2e-admin-token-0123456789";
  private static final String SHIFT = "routing.traffic_shift.blue";
  private static final String LIMIT = "envoy.resource_limits.listener.main.connection_limit";

  @TempDir
  Path dir;

  private final HttpClient http = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1)
      .connectTimeout(Duration.ofSeconds(5)).build();

  private HttpResponse<String> call(String method, String url, String contentType, String body) throws Exception {
    HttpRequest.Builder request = HttpRequest.newBuilder(URI.create(url)).timeout(Duration.ofSeconds(10))
        .method(method, body == null ? HttpRequest.BodyPublishers.noBody() : HttpRequest.BodyPublishers.ofString(body));
    if (url.contains("/configuration/")) {
      request.header("Authorization", "Bearer " + TOKEN);
    }
    if (contentType != null) {
      request.header("Content-Type", contentType);
    }
    return http.send(request.build(), HttpResponse.BodyHandlers.ofString());
  }

  /** The edge's ADS client, a runtime with a static layer and the RTDS layer, and listener main. */
  private static String bootstrap(String apiType, int adminPort, String edgeId, int xdsPort, String credential, int listenerPort,
      int originPort) {
    return EdgeBootstraps.adsClient(adminPort, edgeId, xdsPort, credential).replace("api_type: GRPC", "api_type: " + apiType)
        + """
        layered_runtime:
          layers:
          - name: static
            static_layer: {routing: {traffic_shift: {blue: 0}}}
          - name: central
            rtds_layer: {name: edge-runtime, rtds_config: {ads: {}}}
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
                      - match:
                          prefix: /shift
                          runtime_fraction:
                            default_value: {numerator: 0, denominator: HUNDRED}
                            runtime_key: %s
                        direct_response: {status: 200, body: {inline_string: blue}}
                      - match: {prefix: "/"}
                        route: {cluster: backend}
                  http_filters:
                  - name: envoy.filters.http.router
                    typed_config: {"@type": type.googleapis.com/envoy.extensions.filters.http.router.v3.Router}
          clusters:
          - name: backend
            type: STATIC
            load_assignment:
              cluster_name: backend
              endpoints: [{lb_endpoints: [{endpoint: {address: {socket_address: {address: 127.0.0.1, port_value: %d}}}}]}]
        """.formatted(listenerPort, SHIFT, originPort);
  }

  /** The key's value in the edge's RTDS layer (the second), "" when the layer does not set it. */
  private String rtdsValue(EdgeProcess edge, String key) throws Exception {
    JsonNode runtime = JSON.readTree(call("GET", edge.adminUri("/runtime").toString(), null, null).body());
    assertThat(runtime.path("layers")).hasSize(2);
    return runtime.path("entries").path(key).path("layer_values").path(1).asText("");
  }

  /** Polls /runtime until the key's RTDS value is {@code value}; answers how long that took from {@code since}. */
  private long awaitRtds(EdgeProcess edge, String key, String value, long since) throws Exception {
    String seen;
    while (!(seen = rtdsValue(edge, key)).equals(value)) {
      assertThat(System.nanoTime() - since).as("%s = '%s' in the RTDS layer within %s (still '%s')", key, value, WAIT, seen)
          .isLessThan(WAIT.toNanos());
      Thread.sleep(1);
    }
    return System.nanoTime() - since;
  }

  /** Who answers {@code /shift} on the listener: "blue" (the edge itself) or the origin's name. */
  private String shiftTakenBy(int listenerPort) throws Exception {
    HttpResponse<String> response = call("GET", "http://127.0.0.1:" + listenerPort + "/shift", null, null);
    assertThat(response.statusCode()).isEqualTo(200);
    return response.headers().firstValue("x-origin").orElse(response.body());
  }

  private JsonNode awaitEdgeStatus(int centralPort, String edgeId, Predicate<JsonNode> condition) throws Exception {
    long deadline = System.nanoTime() + WAIT.toNanos();
    while (true) {
      JsonNode status = JSON.readTree(call("GET", "http://127.0.0.1:" + centralPort + "/configuration/edges/" + edgeId, null, null)
          .body()).path("status");
      if (condition.test(status)) {
        return status;
      }
      assertThat(System.nanoTime()).as("edge status never matched: %s", status).isLessThan(deadline);
      Thread.sleep(20);
    }
  }

  private HttpResponse<String> putRuntime(String base, String edgeId, String layerYaml) throws Exception {
    return call("PUT", base + "/configuration/resources/runtimes/edge-runtime?edgeId=" + edgeId, "application/yaml",
        "name: edge-runtime\nlayer: " + layerYaml + "\n");
  }

  @ParameterizedTest
  @ValueSource(strings = {"GRPC", "DELTA_GRPC"})
  void aRuntimeLayerPutInCentralReachesTheEdgeAndMovesItsTraffic(String apiType) throws Exception {
    int[] ports = FreePorts.pick(3);
    int listenerPort = ports[0];
    int adminPort = ports[1];
    int xdsPort = ports[2];
    Path data = Files.createDirectories(dir.resolve("central-data"));
    try (OriginServer origin = OriginServer.start("backend");
        CentralProcess central = CentralProcess.start(dir, List.of("--data-dir", data.toString(), "--xds-port",
            Integer.toString(xdsPort)), Map.of("SPILLWAY_ADMIN_TOKEN", TOKEN))) {
      String base = "http://127.0.0.1:" + central.port();
      HttpResponse<String> registered = call("POST", base + "/configuration/edges", "application/json",
          "{\"id\": \"edge-rt\", \"labels\": {}}");
      assertThat(registered.statusCode()).as(registered.body()).isEqualTo(201);
      String credential = JSON.readTree(registered.body()).path("credential").asText();
      Path bootstrap = dir.resolve("edge-rt.yaml");
      Files.writeString(bootstrap, bootstrap(apiType, adminPort, "edge-rt", xdsPort, credential, listenerPort, origin.port()));
      try (EdgeProcess edge = EdgeProcess.builder().bootstrap(bootstrap).adminPort(adminPort).start()) {
        // Central answers the RTDS subscription (an empty layer while it holds none), and the edge ACKs it.
        awaitEdgeStatus(central.port(), "edge-rt", s -> s.path("connected").asBoolean()
            && s.path("ackedVersions").has(XdsType.RUNTIME.typeUrl()));
        assertThat(shiftTakenBy(listenerPort)).isEqualTo("backend");
        assertThat(rtdsValue(edge, SHIFT)).isEmpty();

        long put = System.nanoTime();
        HttpResponse<String> created = putRuntime(base, "edge-rt", "{routing: {traffic_shift: {blue: 100}}, " + LIMIT + ": 50}");
        assertThat(created.statusCode()).as(created.body()).isEqualTo(201);
        List<Long> micros = new ArrayList<>();
        micros.add(awaitRtds(edge, SHIFT, "100", put) / 1000);
        assertThat(rtdsValue(edge, LIMIT)).isEqualTo("50");
        assertThat(shiftTakenBy(listenerPort)).as("100 %% of /shift is taken by the runtime route").isEqualTo("blue");

        // Updates: each new value replaces the layer's; the last one moves the traffic back.
        List<Long> answered = new ArrayList<>();
        for (int value : new int[] {1, 2, 3, 4, 5, 6, 7, 8, 9, 0}) {
          long sent = System.nanoTime();
          HttpResponse<String> updated = putRuntime(base, "edge-rt", "{routing: {traffic_shift: {blue: " + value + "}}}");
          answered.add((System.nanoTime() - sent) / 1000);
          assertThat(updated.statusCode()).as(updated.body()).isEqualTo(200);
          micros.add(awaitRtds(edge, SHIFT, Integer.toString(value), sent) / 1000);
        }
        assertThat(rtdsValue(edge, LIMIT)).as("a new version replaces the whole layer").isEmpty();
        assertThat(shiftTakenBy(listenerPort)).isEqualTo("backend");
        System.out.printf("RTDS %s: API PUT sent -> edge /runtime shows it, us: %s; PUT answered after, us: %s%n", apiType, micros,
            answered);

        // A layer the edge would refuse: 400 with the edge's message, nothing stored or sent.
        HttpResponse<String> refused = putRuntime(base, "edge-rt", "{routing: {traffic_shift: {blue: [100]}}}");
        assertThat(refused.statusCode()).isEqualTo(400);
        assertThat(JSON.readTree(refused.body()).path("error").asText()).isEqualTo("runtime \"edge-runtime\".layer.routing.traffic_shift"
            + ".blue: a runtime value is a string, number, boolean or fractional percent ({numerator, denominator}), not list_value");
        assertThat(JSON.readTree(call("GET", base + "/configuration/resources/runtimes/edge-runtime?edgeId=edge-rt", null, null).body())
            .path("revision").asLong()).isEqualTo(11);
        Thread.sleep(200);
        assertThat(rtdsValue(edge, SHIFT)).isEqualTo("0");
        assertThat(JSON.readTree(call("GET", base + "/configuration/edges/edge-rt", null, null).body())
            .path("status").path("lastNack").isNull()).as("the edge never refused anything").isTrue();

        // Deleted: the layer is emptied; the static layer's 0 is in force.
        long deleting = System.nanoTime();
        HttpResponse<String> deleted = call("DELETE", base + "/configuration/resources/runtimes/edge-runtime?edgeId=edge-rt", null, null);
        assertThat(deleted.statusCode()).as(deleted.body()).isEqualTo(200);
        awaitRtds(edge, SHIFT, "", deleting);
        JsonNode entry = JSON.readTree(call("GET", edge.adminUri("/runtime").toString(), null, null).body()).path("entries").path(SHIFT);
        assertThat(entry.path("final_value").asText()).isEqualTo("0");
        assertThat(shiftTakenBy(listenerPort)).isEqualTo("backend");
      }
    }
  }
}
