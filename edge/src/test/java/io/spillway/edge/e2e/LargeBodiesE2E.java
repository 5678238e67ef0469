package io.spillway.edge.e2e;

import static org.assertj.core.api.Assertions.assertThat;

import io.spillway.testkit.EdgeProcess;
import io.spillway.testkit.FreePorts;
import io.spillway.testkit.H2cClient;
import io.spillway.testkit.OriginServer;
import java.io.IOException;
import java.io.InputStream;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.Callable;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Bodies far larger than the edge's heap ({@code -Xmx256m}) stream through it in both directions,
 * over HTTP/1.1 and h2c, while its resident set size stays bounded: memory boundedness, not speed
 * (every transfer only has a generous timeout). The measured RSS values are printed to stdout.
 *
 * <p>Every body is the testkit's pattern ({@code 'a' + offset % 26}), generated on the fly and
 * checked byte by byte; nothing is held in memory on the test side either.
 */
class LargeBodiesE2E {

  private static final long GIB = 1024L * 1024 * 1024;
  private static final long H2_BODY = 256L * 1024 * 1024;
  private static final long RSS_BOUND = 768L * 1024 * 1024;
  private static final Duration TRANSFER_TIMEOUT = Duration.ofMinutes(5);

  @TempDir
  static Path dir;

  private static OriginServer origin;
  private static EdgeProcess edge;
  private static HttpClient client;
  private static int port;
  private static long baselineRss;

  @BeforeAll
  static void start() {
    origin = OriginServer.builder().name("large-origin").ioThreads(2).start();
    int[] ports = FreePorts.pick(2);
    port = ports[0];
    Path bootstrap = BootstrapYaml.withAdmin(ports[1])
        .listener(BootstrapYaml.Listener.named("large", port).routes("""
            - match: { prefix: "/" }
              route: { cluster: backend, timeout: 0s }
            """))
        .staticCluster("backend", "", origin.port())
        .writeTo(dir, "large.yaml");
    edge = EdgeProcess.builder().bootstrap(bootstrap).adminPort(ports[1])
        .jvmArgs("-Xmx256m")
        .args("--concurrency", "2")
        .start();
    client = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1).connectTimeout(Duration.ofSeconds(10)).build();
    baselineRss = edge.rssBytes();
    System.out.printf("LargeBodiesE2E edge RSS at start: %d MiB%n", mib(baselineRss));
  }

  @AfterAll
  static void stop() {
    if (client != null) {
      client.close();
    }
    if (edge != null) {
      edge.close();
    }
    if (origin != null) {
      origin.close();
    }
  }

  @Test
  void oneGibUploadOverHttp11() throws Exception {
    long peak = whileSamplingRss("HTTP/1.1 upload 1 GiB", () -> {
      HttpRequest request = HttpRequest.newBuilder(uri("/drain")).timeout(TRANSFER_TIMEOUT)
          .POST(HttpRequest.BodyPublishers.fromPublisher(
              HttpRequest.BodyPublishers.ofInputStream(() -> new PatternInputStream(GIB)), GIB))
          .build();
      HttpResponse<String> response = client.sendAsync(request, HttpResponse.BodyHandlers.ofString())
          .get(TRANSFER_TIMEOUT.toSeconds(), TimeUnit.SECONDS);

      assertThat(response.statusCode()).as(response.body()).isEqualTo(200);
      assertThat(response.headers().firstValue("x-received-bytes")).hasValue(Long.toString(GIB));
      assertThat(origin.lastRequest().bodyLength()).isEqualTo(GIB);
      return null;
    });
    assertThat(peak).as("edge RSS peak during a 1 GiB upload").isLessThan(RSS_BOUND);
  }

  @Test
  void oneGibDownloadOverHttp11() throws Exception {
    long peak = whileSamplingRss("HTTP/1.1 download 1 GiB", () -> {
      HttpRequest request = HttpRequest.newBuilder(uri("/bytes/" + GIB)).timeout(TRANSFER_TIMEOUT).build();
      HttpResponse<InputStream> response = client.sendAsync(request, HttpResponse.BodyHandlers.ofInputStream())
          .get(TRANSFER_TIMEOUT.toSeconds(), TimeUnit.SECONDS);

      assertThat(response.statusCode()).isEqualTo(200);
      assertThat(response.headers().firstValue("content-length")).hasValue(Long.toString(GIB));
      long deadline = System.nanoTime() + TRANSFER_TIMEOUT.toNanos();
      try (InputStream body = response.body()) {
        assertThat(countPatternBytes(body, deadline)).isEqualTo(GIB);
      }
      return null;
    });
    assertThat(peak).as("edge RSS peak during a 1 GiB download").isLessThan(RSS_BOUND);
  }

  @Test
  void largeUploadAndDownloadOverH2c() throws Exception {
    try (H2cClient h2 = H2cClient.connect(port)) {
      long uploadPeak = whileSamplingRss("h2c upload 256 MiB", () -> {
        H2cClient.Response response = h2.upload("POST", "/drain", List.of(), H2_BODY)
            .get(TRANSFER_TIMEOUT.toSeconds(), TimeUnit.SECONDS);
        assertThat(response.status()).as(response.bodyText()).isEqualTo(200);
        assertThat(response.header("x-received-bytes")).isEqualTo(Long.toString(H2_BODY));
        return null;
      });
      long downloadPeak = whileSamplingRss("h2c download 256 MiB", () -> {
        H2cClient.Response response = h2.send("GET", "/bytes/" + H2_BODY, List.of(), null)
            .get(TRANSFER_TIMEOUT.toSeconds(), TimeUnit.SECONDS);
        assertThat(response.status()).isEqualTo(200);
        assertThat(response.reset()).isFalse();
        assertThat(response.bodyLength()).isEqualTo(H2_BODY);
        assertThat(response.bodyMatchesPattern()).isTrue();
        return null;
      });
      assertThat(uploadPeak).as("edge RSS peak during a 256 MiB h2c upload").isLessThan(RSS_BOUND);
      assertThat(downloadPeak).as("edge RSS peak during a 256 MiB h2c download").isLessThan(RSS_BOUND);
    }
  }

  /** Runs {@code transfer} while sampling the edge's RSS every 100 ms; prints and returns the peak. */
  private static long whileSamplingRss(String label, Callable<Void> transfer) throws Exception {
    AtomicLong peak = new AtomicLong(edge.rssBytes());
    ScheduledExecutorService sampler = Executors.newSingleThreadScheduledExecutor(r -> {
      Thread t = new Thread(r, "rss-sampler");
      t.setDaemon(true);
      return t;
    });
    sampler.scheduleAtFixedRate(() -> {
      if (edge.isAlive()) {
        peak.accumulateAndGet(edge.rssBytes(), Math::max);
      }
    }, 0, 100, TimeUnit.MILLISECONDS);
    long started = System.nanoTime();
    try {
      transfer.call();
    } finally {
      sampler.shutdownNow();
      sampler.awaitTermination(5, TimeUnit.SECONDS);
    }
    assertThat(edge.isAlive()).as("edge still running after " + label + "; log:\n" + edge.logTail()).isTrue();
    long after = edge.rssBytes();
    peak.accumulateAndGet(after, Math::max);
    System.out.printf("LargeBodiesE2E edge RSS %s: start %d MiB, peak %d MiB, after %d MiB (%.1f s)%n",
        label, mib(baselineRss), mib(peak.get()), mib(after), (System.nanoTime() - started) / 1e9);
    return peak.get();
  }

  /** Reads to the end, checking every byte against the pattern; returns the count. */
  private static long countPatternBytes(InputStream in, long deadlineNanos) throws IOException {
    byte[] buffer = new byte[64 * 1024];
    long offset = 0;
    int read;
    while ((read = in.read(buffer)) >= 0) {
      for (int i = 0; i < read; i++) {
        if (buffer[i] != (byte) ('a' + (offset + i) % 26)) {
          throw new AssertionError("body byte " + (offset + i) + " is " + buffer[i] + ", not the pattern's");
        }
      }
      offset += read;
      if (System.nanoTime() > deadlineNanos) {
        throw new AssertionError("download not finished within " + TRANSFER_TIMEOUT + " (" + offset + " bytes)");
      }
    }
    return offset;
  }

  private static URI uri(String path) {
    return URI.create("http://127.0.0.1:" + port + path);
  }

  private static long mib(long bytes) {
    return bytes / (1024 * 1024);
  }

  /** {@code length} bytes of the pattern {@code 'a' + offset % 26}, generated as read. */
  private static final class PatternInputStream extends InputStream {
    private static final byte[] SOURCE = new byte[64 * 1024 + 26];

    static {
      for (int i = 0; i < SOURCE.length; i++) {
        SOURCE[i] = (byte) ('a' + i % 26);
      }
    }

    private final long length;
    private long offset;

    PatternInputStream(long length) {
      this.length = length;
    }

    @Override
    public int read() {
      if (offset >= length) {
        return -1;
      }
      return 'a' + (int) (offset++ % 26);
    }

    @Override
    public int read(byte[] target, int off, int len) {
      if (offset >= length) {
        return -1;
      }
      int n = (int) Math.min(Math.min(len, 64 * 1024), length - offset);
      System.arraycopy(SOURCE, (int) (offset % 26), target, off, n);
      offset += n;
      return n;
    }
  }
}
