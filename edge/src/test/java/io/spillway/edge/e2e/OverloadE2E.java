package io.spillway.edge.e2e;

import static org.assertj.core.api.Assertions.assertThat;

import io.spillway.testkit.EdgeProcess;
import io.spillway.testkit.FreePorts;
import io.spillway.testkit.OriginServer;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.stream.Stream;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * The packaged edge under a bounded load loop while an injected_resource file drives the overload
 * manager: below the thresholds every request succeeds, above 0.95 requests get 503 with
 * {@code x-envoy-local-overloaded}, and after the pressure drops everything succeeds again. Also
 * every overload-manager validation error through {@code --mode validate}.
 */
class OverloadE2E {

  @TempDir
  static Path dir;

  private static OriginServer origin;
  private static EdgeProcess edge;
  private static Path pressureFile;
  private static int port;
  private static final HttpClient client = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1).build();

  @BeforeAll
  static void start() throws Exception {
    origin = OriginServer.start("overload-origin");
    int[] ports = FreePorts.pick(2);
    port = ports[0];
    pressureFile = dir.resolve("pressure");
    setPressure(0.3);
    String yaml = BootstrapYaml.withAdmin(ports[1])
        .listener(BootstrapYaml.Listener.named("main", port)
            .hcmOptions("append_local_overload: true")
            .routes("""
                - match: { prefix: "/" }
                  route: { cluster: backend }
                """))
        .staticCluster("backend", "", origin.port())
        .render() + BootstrapYaml.injectedOverloadManager(pressureFile) + """
          actions:
          - name: envoy.overload_actions.disable_http_keepalive
            triggers: [{ name: envoy.resource_monitors.injected_resource, threshold: { value: 0.92 } }]
          - name: envoy.overload_actions.stop_accepting_requests
            triggers: [{ name: envoy.resource_monitors.injected_resource, threshold: { value: 0.95 } }]
        """;
    Path bootstrap = dir.resolve("overload.yaml");
    Files.writeString(bootstrap, yaml);
    edge = EdgeProcess.start(bootstrap, ports[1], "--concurrency", "2");
  }

  @AfterAll
  static void stop() {
    if (edge != null) {
      edge.close();
    }
    if (origin != null) {
      origin.close();
    }
  }

  private static void setPressure(double value) throws Exception {
    Path tmp = dir.resolve("pressure.tmp");
    Files.writeString(tmp, Double.toString(value));
    Files.move(tmp, pressureFile, StandardCopyOption.REPLACE_EXISTING, StandardCopyOption.ATOMIC_MOVE);
  }

  /** Counts of one bounded burst: 4 threads × 50 requests. */
  private record Burst(int ok, int overloaded, int overloadedWithHeader, int other) {}

  private static Burst burst() throws Exception {
    AtomicInteger ok = new AtomicInteger();
    AtomicInteger overloaded = new AtomicInteger();
    AtomicInteger withHeader = new AtomicInteger();
    AtomicInteger other = new AtomicInteger();
    ExecutorService pool = Executors.newFixedThreadPool(4);
    try {
      List<Future<?>> futures = new ArrayList<>();
      for (int t = 0; t < 4; t++) {
        futures.add(pool.submit(() -> {
          for (int i = 0; i < 50; i++) {
            HttpResponse<String> r = client.send(HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + port + "/load"))
                .timeout(Duration.ofSeconds(10)).build(), HttpResponse.BodyHandlers.ofString());
            if (r.statusCode() == 200) {
              ok.incrementAndGet();
            } else if (r.statusCode() == 503 && r.body().equals("envoy overloaded")) {
              overloaded.incrementAndGet();
              if (r.headers().firstValue("x-envoy-local-overloaded").orElse("").equals("true")) {
                withHeader.incrementAndGet();
              }
            } else {
              other.incrementAndGet();
            }
          }
          return null;
        }));
      }
      for (Future<?> f : futures) {
        f.get();
      }
    } finally {
      pool.shutdownNow();
    }
    return new Burst(ok.get(), overloaded.get(), withHeader.get(), other.get());
  }

  /** Waits (bounded) until a probe request answers with the given status. */
  private static void awaitStatus(int status) throws Exception {
    long deadline = System.nanoTime() + Duration.ofSeconds(15).toNanos();
    while (System.nanoTime() < deadline) {
      HttpResponse<String> r = client.send(HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + port + "/probe"))
          .timeout(Duration.ofSeconds(5)).build(), HttpResponse.BodyHandlers.ofString());
      if (r.statusCode() == status) {
        return;
      }
      Thread.sleep(20);
    }
    throw new AssertionError("the edge never answered " + status + "; log:\n" + edge.logTail());
  }

  @Test
  void shedsWhileOverThresholdAndRecoversFully() throws Exception {
    Burst calm = burst();
    assertThat(calm).isEqualTo(new Burst(200, 0, 0, 0));

    setPressure(0.97);
    awaitStatus(503);
    int originBefore = origin.requestCount();
    Burst storm = burst();
    assertThat(storm.overloaded()).isEqualTo(200);
    assertThat(storm.overloadedWithHeader()).isEqualTo(200);
    assertThat(origin.requestCount()).isEqualTo(originBefore);

    setPressure(0.2);
    awaitStatus(200);
    Burst after = burst();
    assertThat(after).isEqualTo(new Burst(200, 0, 0, 0));
    assertThat(new AdminClient(edge).stat("http.main.downstream_rq_overload_close")).isGreaterThanOrEqualTo(200);
  }

  static Stream<Arguments> invalidOverloadConfigs() {
    String monitor = """
          resource_monitors:
          - name: envoy.resource_monitors.injected_resource
            typed_config:
              "@type": type.googleapis.com/envoy.extensions.resource_monitors.injected_resource.v3.InjectedResourceConfig
              filename: /tmp/pressure
        """;
    return Stream.of(
        Arguments.of(monitor + """
              actions:
              - name: envoy.overload_actions.not_a_thing
                triggers: [{ name: envoy.resource_monitors.injected_resource, threshold: { value: 0.9 } }]
            """, "Unknown Overload Manager Action envoy.overload_actions.not_a_thing"),
        Arguments.of(monitor + """
              actions:
              - name: envoy.overload_actions.stop_accepting_requests
                triggers: [{ name: envoy.resource_monitors.fixed_heap, threshold: { value: 0.9 } }]
            """, "Unknown trigger resource envoy.resource_monitors.fixed_heap"),
        Arguments.of(monitor + """
              - name: envoy.resource_monitors.injected_resource
                typed_config:
                  "@type": type.googleapis.com/envoy.extensions.resource_monitors.injected_resource.v3.InjectedResourceConfig
                  filename: /tmp/other
            """, "Duplicate resource monitor envoy.resource_monitors.injected_resource"),
        Arguments.of(monitor + """
              actions:
              - name: envoy.overload_actions.stop_accepting_requests
                triggers: [{ name: envoy.resource_monitors.injected_resource, scaled: { scaling_threshold: 0.9, saturation_threshold: 0.8 } }]
            """, "scaling_threshold must be less than saturation_threshold"),
        Arguments.of(monitor + """
              actions:
              - name: envoy.overload_actions.stop_accepting_requests
                triggers: [{ name: envoy.resource_monitors.injected_resource, threshold: { value: 0.9 } }]
                typed_config:
                  "@type": type.googleapis.com/envoy.config.overload.v3.ScaleTimersOverloadActionConfig
                  timer_scale_factors: [{ timer: HTTP_DOWNSTREAM_CONNECTION_IDLE, min_timeout: 1s }]
            """, "has an unexpected value for the typed_config field"),
        Arguments.of(monitor + """
              actions:
              - name: envoy.overload_actions.reset_high_memory_stream
                triggers: [{ name: envoy.resource_monitors.injected_resource, threshold: { value: 0.9 } }]
            """, "requires buffer_factory_config"));
  }

  @ParameterizedTest
  @MethodSource("invalidOverloadConfigs")
  void validateModeReportsEachOverloadError(String overloadBody, String message) throws Exception {
    String yaml = BootstrapYaml.withAdmin(FreePorts.pick())
        .listener(BootstrapYaml.Listener.named("v", FreePorts.pick()).routes("""
            - match: { prefix: "/" }
              route: { cluster: backend }
            """))
        .staticCluster("backend", "", 8080)
        .render() + "overload_manager:\n" + overloadBody;
    Path file = dir.resolve("invalid-" + Math.abs(message.hashCode()) + ".yaml");
    Files.writeString(file, yaml);
    EdgeProcess.Result r = EdgeProcess.run(Duration.ofSeconds(60), "-c", file.toString(), "--mode", "validate");
    assertThat(r.exitCode()).as(r.stderr()).isEqualTo(1);
    assertThat(r.stderr()).contains("overload_manager").contains(message);
  }
}
