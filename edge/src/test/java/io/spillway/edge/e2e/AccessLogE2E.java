package io.spillway.edge.e2e;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.spillway.testkit.EdgeProcess;
import io.spillway.testkit.FreePorts;
import io.spillway.testkit.OriginServer;
import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.function.BooleanSupplier;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Access logs from the packaged edge: a bounded loop of N requests gives exactly N lines in Envoy's
 * default format and in a JSON format, errors only in a filtered log, connection lines from the
 * listener, admin request lines, and reopening after a rename by {@code POST /reopen_logs} and by
 * SIGUSR1.
 */
class AccessLogE2E {

  private static final int N = 200;
  private static final Duration TIMEOUT = Duration.ofSeconds(20);

  @TempDir
  Path dir;

  @Test
  void everyRequestIsOneLineAndFilesReopenForLogrotate() throws Exception {
    Path text = dir.resolve("access.log");
    Path json = dir.resolve("access.json");
    Path errors = dir.resolve("errors.log");
    Path connections = dir.resolve("connections.log");
    Path adminLog = dir.resolve("admin.log");
    int[] ports = FreePorts.pick(2);
    try (OriginServer origin = OriginServer.start("accesslog-origin")) {
      Path bootstrap = BootstrapYaml.withAdmin(ports[1])
          .adminOptions("access_log_path: " + adminLog + "\n")
          .listener(BootstrapYaml.Listener.named("logged", ports[0])
              .listenerOptions("""
                  access_log:
                  - name: envoy.access_loggers.file
                    typed_config:
                      "@type": type.googleapis.com/envoy.extensions.access_loggers.file.v3.FileAccessLog
                      path: %s
                      log_format:
                        text_format_source: {inline_string: "conn %%DOWNSTREAM_REMOTE_ADDRESS_WITHOUT_PORT%% %%BYTES_RECEIVED%% %%BYTES_SENT%% %%PROTOCOL%%\\n"}
                  """.formatted(connections))
              .hcmOptions("""
                  access_log:
                  - name: envoy.access_loggers.file
                    typed_config:
                      "@type": type.googleapis.com/envoy.extensions.access_loggers.file.v3.FileAccessLog
                      path: %s
                  - name: envoy.access_loggers.file
                    typed_config:
                      "@type": type.googleapis.com/envoy.extensions.access_loggers.file.v3.FileAccessLog
                      path: %s
                      log_format:
                        json_format:
                          code: "%%RESPONSE_CODE%%"
                          path: "%%REQ(:PATH)%%"
                          host: "%%UPSTREAM_HOST%%"
                          cluster: "%%UPSTREAM_CLUSTER%%"
                          flags: "%%RESPONSE_FLAGS%%"
                          sent: "%%BYTES_SENT%%"
                  - name: envoy.access_loggers.file
                    filter: {status_code_filter: {comparison: {op: GE, value: {default_value: 500, runtime_key: k}}}}
                    typed_config:
                      "@type": type.googleapis.com/envoy.extensions.access_loggers.file.v3.FileAccessLog
                      path: %s
                      log_format: {text_format_source: {inline_string: "%%RESPONSE_CODE%% %%RESPONSE_FLAGS%%\\n"}}
                  """.formatted(text, json, errors))
              .routes("""
                  - match: { prefix: "/dead" }
                    route: { cluster: dead }
                  - match: { prefix: "/" }
                    route: { cluster: backend }
                  """))
          .staticCluster("backend", "", origin.port())
          .staticCluster("dead", "")
          .writeTo(dir, "accesslog.yaml");
      try (EdgeProcess edge = EdgeProcess.start(bootstrap, ports[1], "--concurrency", "2",
          "--file-flush-interval-msec", "100");
          HttpClient client = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1).connectTimeout(TIMEOUT)
              .build()) {
        AdminClient admin = new AdminClient(edge);
        for (int i = 0; i < N; i++) {
          assertThat(get(client, ports[0], "/item/" + i).statusCode()).isEqualTo(200);
        }
        await(() -> lines(text).size() >= N && lines(json).size() >= N);
        Thread.sleep(300); // three more flush intervals: nothing more may arrive
        List<String> textLines = lines(text);
        assertThat(textLines).hasSize(N);
        assertThat(textLines.get(0)).matches("\\[\\d{4}-\\d\\d-\\d\\dT\\d\\d:\\d\\d:\\d\\d\\.\\d{3}Z\\] "
            + "\"GET /item/0 HTTP/1.1\" 200 - 0 \\d+ \\d+ \\d+ \"-\" \"Java-http-client/.*\" \"[0-9a-f-]{36}\" "
            + "\"127.0.0.1:" + ports[0] + "\" \"127.0.0.1:" + origin.port() + "\"");
        ObjectMapper mapper = new ObjectMapper();
        List<String> jsonLines = lines(json);
        assertThat(jsonLines).hasSize(N);
        for (int i = 0; i < N; i++) {
          JsonNode line = mapper.readTree(jsonLines.get(i));
          assertThat(line.get("code").asInt()).isEqualTo(200);
          assertThat(line.get("code").isNumber()).isTrue();
          assertThat(line.get("path").asText()).isEqualTo("/item/" + i);
          assertThat(line.get("host").asText()).isEqualTo("127.0.0.1:" + origin.port());
          assertThat(line.get("cluster").asText()).isEqualTo("backend");
          assertThat(line.get("flags").asText()).isEqualTo("-");
        }
        assertThat(lines(errors)).isEmpty();

        assertThat(get(client, ports[0], "/dead").statusCode()).isEqualTo(503);
        await(() -> lines(errors).size() == 1);
        assertThat(lines(errors)).containsExactly("503 UH");

        // logrotate: rename, then reopen by the admin endpoint, then by SIGUSR1.
        Files.move(text, dir.resolve("access.log.1"));
        assertThat(admin.post("/reopen_logs").statusCode()).isEqualTo(200);
        get(client, ports[0], "/after-reopen");
        await(() -> lines(text).size() == 1);
        assertThat(lines(text).get(0)).contains("\"GET /after-reopen HTTP/1.1\" 200");
        assertThat(lines(dir.resolve("access.log.1"))).hasSize(N + 1);

        Files.move(text, dir.resolve("access.log.2"));
        Process kill = new ProcessBuilder("kill", "-USR1", Long.toString(edge.pid())).start();
        assertThat(kill.waitFor()).isZero();
        Thread.sleep(200); // the signal is handled on its own thread
        get(client, ports[0], "/after-usr1");
        await(() -> lines(text).size() == 1);
        assertThat(lines(text).get(0)).contains("\"GET /after-usr1 HTTP/1.1\" 200");

        await(() -> !lines(adminLog).isEmpty());
        assertThat(lines(adminLog)).anyMatch(l -> l.contains("\"POST /reopen_logs HTTP/1.1\" 200"));
        assertThat(admin.stat("filesystem.write_dropped")).isZero();
        assertThat(admin.stat("filesystem.write_buffered")).isGreaterThanOrEqualTo(2L * N + 3);

        assertThat(edge.stop()).isZero(); // closes the connections: their lines are written on the way out
      }
      assertThat(lines(connections)).isNotEmpty().allMatch(l -> l.matches("conn 127\\.0\\.0\\.1 [1-9]\\d* [1-9]\\d* -"));
    }
  }

  private static HttpResponse<String> get(HttpClient client, int port, String path)
      throws IOException, InterruptedException {
    return client.send(HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + port + path)).timeout(TIMEOUT).build(),
        HttpResponse.BodyHandlers.ofString());
  }

  private static List<String> lines(Path file) {
    try {
      return Files.exists(file) ? Files.readAllLines(file, StandardCharsets.UTF_8) : List.of();
    } catch (IOException e) {
      throw new IllegalStateException(e);
    }
  }

  /** Polls for at most 10 s (the flush interval is 100 ms). */
  private static void await(BooleanSupplier condition) throws InterruptedException {
    long deadline = System.nanoTime() + Duration.ofSeconds(10).toNanos();
    while (!condition.getAsBoolean()) {
      assertThat(System.nanoTime()).as("condition not met within 10 s").isLessThan(deadline);
      Thread.sleep(20);
    }
  }
}
