package io.spillway.edge.e2e;

import static org.assertj.core.api.Assertions.assertThat;

import io.spillway.testkit.EdgeProcess;
import io.spillway.testkit.FreePorts;
import io.spillway.testkit.OriginServer;
import io.spillway.testkit.RawHttp;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Hot restart with two packaged edges: epoch 1 takes the listening socket over from epoch 0 while
 * clients keep sending requests (a new connection per request, and a keep-alive connection), and
 * epoch 0 drains and exits 0. Both epochs use the same admin port: the parent closes its admin
 * listener when the child asks it to drain, and the child binds it then.
 */
class HotRestartE2E {

  private static final Duration TIMEOUT = Duration.ofSeconds(20);
  /**
   * Each client's bound: far more than a client sends while epoch 1 starts and epoch 0 drains
   * (about 3,000 on an idle machine), so that the clients are still sending when epoch 0 exits;
   * {@link Clients#stop()} ends them before either bound is reached.
   */
  private static final int MAX_REQUESTS_PER_CLIENT = 100_000;
  /** Each client's time bound: the handover's wait and the wait after it. */
  private static final Duration CLIENT_TIME = TIMEOUT.multipliedBy(3);

  @TempDir
  static Path dir;

  private static OriginServer origin;
  private final List<EdgeProcess> edges = new ArrayList<>();

  @BeforeAll
  static void startOrigin() {
    origin = OriginServer.start("hr-origin");
  }

  @AfterAll
  static void stopOrigin() {
    if (origin != null) {
      origin.close();
    }
  }

  @AfterEach
  void stopEdges() {
    edges.forEach(EdgeProcess::close);
  }

  @Test
  void nextEpochTakesTheListenerOverWithoutRefusingAConnection() throws Exception {
    int[] ports = FreePorts.pick(2);
    int port = ports[0];
    int adminPort = ports[1];
    Path bootstrap = BootstrapYaml.withAdmin(adminPort)
        .listener(BootstrapYaml.Listener.named("hr", port).routes("""
            - match: { prefix: "/" }
              route: { cluster: backend }
            """))
        .staticCluster("backend", "", origin.port())
        .writeTo(dir, "hr.yaml");
    String baseId = String.valueOf(ThreadLocalRandom.current().nextInt(1000, 1_000_000));
    EdgeProcess parent = start(bootstrap, adminPort, baseId, 0);
    assertThat(new AdminClient(parent).get("/hot_restart_version").body().trim()).isEqualTo("spillway.hot_restart.1");

    Clients clients = new Clients(port);
    clients.start();
    try {
      clients.awaitAnswers(200);
      EdgeProcess child = start(bootstrap, adminPort, baseId, 1);

      long deadline = System.nanoTime() + TIMEOUT.toNanos();
      while (parent.isAlive() && System.nanoTime() < deadline) {
        Thread.sleep(50);
      }
      assertThat(parent.isAlive()).as("epoch 0 exits after the handover; log:\n" + parent.logTail()).isFalse();
      assertThat(parent.stop()).as("epoch 0's exit code; log:\n" + parent.logTail()).isZero();
      int atParentExit = clients.answered.get();
      clients.awaitAnswers(atParentExit + 200);
      clients.stop();

      assertThat(clients.failures).as("failed requests").isEmpty();
      assertThat(clients.answered.get() - atParentExit).as("requests answered after epoch 0 exited").isPositive();
      AdminClient admin = new AdminClient(child);
      assertThat(admin.stat("server.hot_restart_epoch")).isEqualTo(1);
      assertThat(admin.get("/server_info").body()).contains("\"restart_epoch\": 1");
      assertThat(child.isAlive()).isTrue();
      System.out.printf("hot restart: %d requests answered, %d after epoch 0 exited, longest gap between answers %d ms%n",
          clients.answered.get(), clients.answered.get() - atParentExit, clients.longestGapMillis());
    } finally {
      clients.stop();
    }
  }

  @Test
  void anEpochWithoutItsParentFailsNamingTheSocket() {
    Path bootstrap = BootstrapYaml.withAdmin(FreePorts.pick(1)[0]).writeTo(dir, "orphan.yaml");
    EdgeProcess.Result r = EdgeProcess.run(TIMEOUT, "-c", bootstrap.toString(), "--base-id", "999999999",
        "--restart-epoch", "3");
    assertThat(r.exitCode()).isEqualTo(1);
    assertThat(r.stdout() + r.stderr()).contains("@spillway_hot_restart_999999999_2");
  }

  @Test
  void anEpochAboveZeroWithHotRestartDisabledIsAUsageError() {
    Path bootstrap = BootstrapYaml.withAdmin(FreePorts.pick(1)[0]).writeTo(dir, "disabled.yaml");
    EdgeProcess.Result r = EdgeProcess.run(TIMEOUT, "-c", bootstrap.toString(), "--disable-hot-restart",
        "--restart-epoch", "1");
    assertThat(r.exitCode()).isEqualTo(2);
    assertThat(r.stderr()).contains("--restart-epoch 1: hot restart is disabled");
    EdgeProcess.Result nio = EdgeProcess.run(TIMEOUT, "-c", bootstrap.toString(), "--transport", "nio",
        "--restart-epoch", "1");
    assertThat(nio.exitCode()).isEqualTo(2);
    assertThat(nio.stderr()).contains("hot restart needs the epoll transport");
  }

  @Test
  void hotRestartVersionIsPrinted() {
    EdgeProcess.Result r = EdgeProcess.run(TIMEOUT, "--hot-restart-version");
    assertThat(r.exitCode()).isZero();
    assertThat(r.stdout().trim()).isEqualTo("spillway.hot_restart.1");
  }

  private EdgeProcess start(Path bootstrap, int adminPort, String baseId, int epoch) {
    EdgeProcess edge = EdgeProcess.builder().bootstrap(bootstrap).adminPort(adminPort).hotRestart()
        .args("--concurrency", "2", "--drain-time-s", "5", "--base-id", baseId, "--restart-epoch", String.valueOf(epoch))
        .start();
    edges.add(edge);
    return edge;
  }

  /**
   * Two bounded request loops (at most {@link #MAX_REQUESTS_PER_CLIENT} requests each, for at most
   * {@link #CLIENT_TIME}): one opens a connection per request, the other keeps its connections alive.
   */
  private static final class Clients {
    private final int port;
    private final AtomicBoolean running = new AtomicBoolean(true);
    private final AtomicInteger answered = new AtomicInteger();
    private final ConcurrentLinkedQueue<String> failures = new ConcurrentLinkedQueue<>();
    /** System.nanoTime() of every answer, in the order they came. */
    private final ConcurrentLinkedQueue<Long> answerTimes = new ConcurrentLinkedQueue<>();
    private final List<Thread> threads = new ArrayList<>();

    Clients(int port) {
      this.port = port;
    }

    void start() {
      threads.add(Thread.ofPlatform().name("hr-new-connections").start(() -> loop(i -> {
        RawHttp.Response r = RawHttp.exchange(port,
            "GET /hr/new/" + i + " HTTP/1.1\r\nHost: a\r\nConnection: close\r\n\r\n", Duration.ofSeconds(5));
        check(r.status(), r.bodyText(), "/hr/new/" + i);
      })));
      threads.add(Thread.ofPlatform().name("hr-keep-alive").start(() -> {
        try (HttpClient http = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1)
            .connectTimeout(Duration.ofSeconds(5)).build()) {
          loop(i -> {
            HttpResponse<String> r = http.send(HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + port + "/hr/keep/" + i))
                .timeout(Duration.ofSeconds(5)).GET().build(), HttpResponse.BodyHandlers.ofString());
            check(r.statusCode(), r.body(), "/hr/keep/" + i);
          });
        }
      }));
    }

    private interface Request {
      void send(int i) throws Exception;
    }

    private void loop(Request request) {
      long deadline = System.nanoTime() + CLIENT_TIME.toNanos();
      for (int i = 0; i < MAX_REQUESTS_PER_CLIENT && running.get() && System.nanoTime() < deadline; i++) {
        try {
          request.send(i);
        } catch (Exception e) {
          failures.add(Thread.currentThread().getName() + " #" + i + ": " + e);
        }
      }
    }

    private void check(int status, String body, String path) {
      if (status == 200 && body.equals("hr-origin GET " + path + "\n")) {
        answerTimes.add(System.nanoTime());
        answered.incrementAndGet();
      } else {
        failures.add(path + ": " + status + " " + body);
      }
    }

    void awaitAnswers(int count) throws InterruptedException {
      long deadline = System.nanoTime() + TIMEOUT.toNanos();
      while (answered.get() < count && System.nanoTime() < deadline && threads.stream().anyMatch(Thread::isAlive)) {
        Thread.sleep(10);
      }
    }

    void stop() throws InterruptedException {
      running.set(false);
      for (Thread t : threads) {
        t.join(TIMEOUT.toMillis());
      }
    }

    long longestGapMillis() {
      List<Long> times = new ArrayList<>(answerTimes);
      times.sort(Long::compare);
      long longest = 0;
      for (int i = 1; i < times.size(); i++) {
        longest = Math.max(longest, times.get(i) - times.get(i - 1));
      }
      return longest / 1_000_000;
    }
  }
}
