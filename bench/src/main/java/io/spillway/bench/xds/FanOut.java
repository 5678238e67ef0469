package io.spillway.bench.xds;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.envoyproxy.envoy.config.cluster.v3.Cluster;
import io.envoyproxy.envoy.config.core.v3.Node;
import io.envoyproxy.envoy.service.discovery.v3.AggregatedDiscoveryServiceGrpc;
import io.envoyproxy.envoy.service.discovery.v3.DiscoveryRequest;
import io.envoyproxy.envoy.service.discovery.v3.DiscoveryResponse;
import io.grpc.ManagedChannel;
import io.grpc.Metadata;
import io.grpc.Status;
import io.grpc.netty.shaded.io.grpc.netty.NettyChannelBuilder;
import io.grpc.stub.MetadataUtils;
import io.grpc.stub.StreamObserver;
import java.io.IOException;
import java.io.PrintWriter;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * xDS fan-out load harness (issue 7; run by bench/xds-fanout.sh, never by the tests).
 *
 * <p>Registers N edges with central's REST API (labels {@code env=bench}), opens one State-of-the-
 * World ADS stream per edge (node.id = the edge id, {@code authorization: Bearer <credential>}),
 * multiplexed over {@code --channels} gRPC channels (default 1: all N streams share one HTTP/2
 * connection), subscribes each stream to the OverloadPolicy type and to CDS (both wildcard) and
 * ACKs every response (version_info + nonce) as soon as it arrives. Then:
 *
 * <ul>
 *   <li><b>per-edge policy rounds</b> ({@code --rounds}): for every edge in turn, PATCH its policy
 *       (inbound mode toggling enforce/shadow); per edge, the time from the PATCH being sent, and
 *       from its 200 being received, to the DiscoveryResponse with the new version arriving on that
 *       edge's stream. PATCHes are sent by {@code --patch-concurrency} threads (default 1, i.e.
 *       one after another, each waiting for its 200). The next round starts once every edge has its
 *       push (or the round timed out).
 *   <li><b>selector rounds</b> ({@code --selector-rounds}): ONE {@code PUT
 *       /configuration/resources/clusters/fanout?selector=env=bench} (connect_timeout changes each
 *       round); per edge, the time from the PUT being sent (and from its 200) to the CDS response
 *       with the new version on that edge's stream, plus per round the time until the last edge has it.
 * </ul>
 *
 * Only 127.0.0.1. Every wait is bounded ({@code --timeout-ms} per round); missing pushes are
 * counted and make the exit status 1.
 */
public final class FanOut {

  static final String POLICY_TYPE = "type.googleapis.com/spillway.policy.v1.OverloadPolicy";
  static final String CDS_TYPE = "type.googleapis.com/envoy.config.cluster.v3.Cluster";
  static final ObjectMapper JSON = new ObjectMapper();

  // ---- options
  int httpPort = 8080;
  int xdsPort = 18000;
  String token = System.getenv().getOrDefault("SPILLWAY_ADMIN_TOKEN", "");
  int edges = 100;
  int rounds = 20;
  int selectorRounds = 20;
  int warmupRounds = 2;
  volatile boolean closing;
  int channels = 1;
  int patchConcurrency = 1;
  long timeoutMs = 10_000;
  String prefix = "fanout";
  Path out;

  // ---- state
  final HttpClient http = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1)
      .connectTimeout(Duration.ofSeconds(5)).build();
  final List<ManagedChannel> channelList = new ArrayList<>();
  Edge[] edgeList;
  volatile Watch watch;
  final AtomicInteger streamErrors = new AtomicInteger();
  final AtomicInteger acks = new AtomicInteger();
  final AtomicInteger wrongContent = new AtomicInteger();
  CountDownLatch firstResponses;

  /** One simulated edge: its stream, and the last version seen per type. */
  final class Edge {
    final int index;
    final String id;
    final String credential;
    StreamObserver<DiscoveryRequest> requests;
    final ConcurrentHashMap<String, String> versions = new ConcurrentHashMap<>();
    volatile boolean firstPolicy;
    volatile boolean firstCds;

    Edge(int index, String id, String credential) {
      this.index = index;
      this.id = id;
      this.credential = credential;
    }

    void open(ManagedChannel channel) {
      Metadata headers = new Metadata();
      headers.put(Metadata.Key.of("authorization", Metadata.ASCII_STRING_MARSHALLER), "Bearer " + credential);
      requests = AggregatedDiscoveryServiceGrpc.newStub(channel)
          .withInterceptors(MetadataUtils.newAttachHeadersInterceptor(headers))
          .streamAggregatedResources(new StreamObserver<>() {
            @Override
            public void onNext(DiscoveryResponse response) {
              received(response, System.nanoTime());
            }

            @Override
            public void onError(Throwable t) {
              if (closing) {
                return;
              }
              streamErrors.incrementAndGet();
              System.err.println("fanout: stream of " + id + " ended: " + Status.fromThrowable(t));
            }

            @Override
            public void onCompleted() {
              if (closing) {
                return;
              }
              streamErrors.incrementAndGet();
              System.err.println("fanout: stream of " + id + " completed by central");
            }
          });
      Node node = Node.newBuilder().setId(id).setCluster("bench-fanout").build();
      send(DiscoveryRequest.newBuilder().setNode(node).setTypeUrl(POLICY_TYPE).build());
      send(DiscoveryRequest.newBuilder().setTypeUrl(CDS_TYPE).build());
    }

    synchronized void send(DiscoveryRequest request) {
      requests.onNext(request);
    }

    void received(DiscoveryResponse response, long atNanos) {
      String type = response.getTypeUrl();
      String version = response.getVersionInfo();
      Watch w = watch;
      if (w != null && w.typeUrl.equals(type) && !version.equals(w.baseline[index])) {
        w.arrived(index, atNanos, response);
      }
      versions.put(type, version);
      // ACK at once: central sends the next version of a type only after the previous one is answered.
      send(DiscoveryRequest.newBuilder().setTypeUrl(type).setVersionInfo(version)
          .setResponseNonce(response.getNonce()).build());
      acks.incrementAndGet();
      if (type.equals(POLICY_TYPE) && !firstPolicy) {
        firstPolicy = true;
        firstResponses.countDown();
      } else if (type.equals(CDS_TYPE) && !firstCds) {
        firstCds = true;
        firstResponses.countDown();
      }
    }
  }

  /** One round's expectation: the first response of a type with a version other than the baseline. */
  final class Watch {
    final String typeUrl;
    final String[] baseline;
    final long[] arrival;
    final String[] version;
    final CountDownLatch latch;
    final long expectedTimeoutSeconds; // CDS rounds: the connect_timeout the new cluster carries; else -1

    Watch(String typeUrl, long expectedTimeoutSeconds) {
      this.typeUrl = typeUrl;
      this.expectedTimeoutSeconds = expectedTimeoutSeconds;
      baseline = new String[edgeList.length];
      arrival = new long[edgeList.length];
      version = new String[edgeList.length];
      for (Edge e : edgeList) {
        baseline[e.index] = e.versions.getOrDefault(typeUrl, "");
      }
      latch = new CountDownLatch(edgeList.length);
    }

    synchronized void arrived(int index, long atNanos, DiscoveryResponse response) {
      if (arrival[index] != 0) {
        return;
      }
      arrival[index] = atNanos;
      version[index] = response.getVersionInfo();
      if (expectedTimeoutSeconds >= 0 && !clusterHasTimeout(response, expectedTimeoutSeconds)) {
        wrongContent.incrementAndGet();
      }
      latch.countDown();
    }
  }

  static boolean clusterHasTimeout(DiscoveryResponse response, long seconds) {
    try {
      for (var any : response.getResourcesList()) {
        Cluster cluster = any.unpack(Cluster.class);
        if (cluster.getName().equals("fanout")) {
          return cluster.getConnectTimeout().getSeconds() == seconds;
        }
      }
    } catch (Exception e) {
      return false;
    }
    return false;
  }

  // ---- samples
  final List<Double> policyFromSent = Collections.synchronizedList(new ArrayList<>());
  final List<Double> policyFromAnswered = Collections.synchronizedList(new ArrayList<>());
  final List<Double> patchRtt = Collections.synchronizedList(new ArrayList<>());
  final List<Double> policyRoundMs = new ArrayList<>();
  final List<Double> selectorFromSent = new ArrayList<>();
  final List<Double> selectorFromAnswered = new ArrayList<>();
  final List<Double> selectorAllEdges = new ArrayList<>();
  final List<Double> putRtt = new ArrayList<>();
  int policyMissing;
  int policyRoundsRun;
  int selectorMissing;
  int versionMismatch;
  PrintWriter samples;

  public static void main(String[] args) throws Exception {
    FanOut f = new FanOut();
    for (int i = 0; i < args.length; i++) {
      String a = args[i];
      String v = i + 1 < args.length ? args[i + 1] : null;
      switch (a) {
        case "--http-port" -> { f.httpPort = Integer.parseInt(v); i++; }
        case "--xds-port" -> { f.xdsPort = Integer.parseInt(v); i++; }
        case "--token" -> { f.token = v; i++; }
        case "--edges" -> { f.edges = Integer.parseInt(v); i++; }
        case "--rounds" -> { f.rounds = Integer.parseInt(v); i++; }
        case "--selector-rounds" -> { f.selectorRounds = Integer.parseInt(v); i++; }
        case "--warmup-rounds" -> { f.warmupRounds = Integer.parseInt(v); i++; }
        case "--channels" -> { f.channels = Integer.parseInt(v); i++; }
        case "--patch-concurrency" -> { f.patchConcurrency = Integer.parseInt(v); i++; }
        case "--timeout-ms" -> { f.timeoutMs = Long.parseLong(v); i++; }
        case "--prefix" -> { f.prefix = v; i++; }
        case "--out" -> { f.out = Path.of(v); i++; }
        case "-h", "--help" -> {
          System.out.println("FanOut --http-port P --xds-port P [--token T (or SPILLWAY_ADMIN_TOKEN)] [--edges 100] [--rounds 20]"
              + " [--selector-rounds 20] [--warmup-rounds 2] [--channels 1] [--patch-concurrency 1] [--timeout-ms 10000] [--prefix fanout] [--out samples.tsv]");
          return;
        }
        default -> throw new IllegalArgumentException("unknown option " + a);
      }
    }
    if (f.edges < 1 || f.edges > 2000 || f.rounds < 0 || f.rounds > 1000 || f.selectorRounds < 0 || f.selectorRounds > 1000
        || f.channels < 1 || f.channels > f.edges || f.patchConcurrency < 1 || f.patchConcurrency > 64) {
      throw new IllegalArgumentException("option out of range (edges 1-2000, rounds 0-1000, channels 1-edges, patch-concurrency 1-64)");
    }
    int status;
    try {
      status = f.run();
    } finally {
      f.close();
    }
    System.exit(status);
  }

  int run() throws Exception {
    System.out.printf(Locale.ROOT, "fanout: %d edges, %d channel(s), %d policy rounds (PATCH concurrency %d), %d selector rounds, %d warm-up rounds of each; loadavg at start: %s%n",
        edges, channels, rounds, patchConcurrency, selectorRounds, warmupRounds, loadavg());
    if (out != null) {
      samples = new PrintWriter(Files.newBufferedWriter(out));
      samples.println("kind\tround\tedge\tfrom_sent_ms\tfrom_answered_ms");
    }
    // Register.
    long t0 = System.nanoTime();
    edgeList = new Edge[edges];
    for (int i = 0; i < edges; i++) {
      String id = prefix + "-" + i;
      HttpResponse<String> r = call("POST", "/configuration/edges",
          "{\"id\":\"" + id + "\",\"labels\":{\"env\":\"bench\",\"bench\":\"fanout\"}}", "application/json");
      if (r.statusCode() != 201 && r.statusCode() != 200) {
        throw new IOException("register " + id + ": " + r.statusCode() + " " + r.body());
      }
      edgeList[i] = new Edge(i, id, JSON.readTree(r.body()).get("credential").asText());
    }
    System.out.printf(Locale.ROOT, "fanout: registered %d edges in %.0f ms%n", edges, (System.nanoTime() - t0) / 1e6);

    // Connect.
    for (int c = 0; c < channels; c++) {
      channelList.add(NettyChannelBuilder.forAddress("127.0.0.1", xdsPort).usePlaintext().build());
    }
    firstResponses = new CountDownLatch(2 * edges);
    t0 = System.nanoTime();
    for (Edge e : edgeList) {
      e.open(channelList.get(e.index % channels));
    }
    if (!firstResponses.await(Math.max(timeoutMs, 30_000), TimeUnit.MILLISECONDS)) {
      throw new IOException("only " + (2 * edges - firstResponses.getCount()) + " of " + 2 * edges
          + " first responses (policy + CDS) arrived; stream errors: " + streamErrors.get());
    }
    System.out.printf(Locale.ROOT, "fanout: %d streams subscribed (policy + CDS), all first responses in %.0f ms%n",
        edges, (System.nanoTime() - t0) / 1e6);

    // Warm-up: untimed policy and selector rounds (JIT, connection pools, H2 caches).
    for (int r = 0; r < warmupRounds; r++) {
      policyRound(-1 - r);
      selectorRound(-1 - r);
    }

    // Central's own share (publish -> response written to the stream; no HTTP call, no client):
    // its push-latency histogram, read before and after each measured phase.
    Map<Double, Double> beforePolicy = pushLatencyBuckets();
    for (int r = 0; r < rounds; r++) {
      policyRound(r);
    }
    Map<Double, Double> beforeSelector = pushLatencyBuckets();
    for (int r = 0; r < selectorRounds; r++) {
      selectorRound(r);
    }
    Map<Double, Double> end = pushLatencyBuckets();

    System.out.println();
    System.out.printf(Locale.ROOT, "== xDS fan-out: %d edges on %d gRPC channel(s) to one central; loadavg at end: %s%n", edges, channels, loadavg());
    print("per-edge PATCH -> push on that edge's stream, from PATCH sent", policyFromSent);
    print("per-edge PATCH -> push on that edge's stream, from PATCH 200 received", policyFromAnswered);
    print("PATCH round trip (sent -> 200)", patchRtt);
    print("policy round: " + edges + " PATCHes, all pushes in", policyRoundMs);
    print("selector PUT -> CDS push on each edge, from PUT sent", selectorFromSent);
    print("selector PUT -> CDS push on each edge, from PUT 200 received", selectorFromAnswered);
    print("selector PUT -> CDS push on the LAST edge, from PUT sent (one per round)", selectorAllEdges);
    print("PUT round trip (sent -> 200)", putRtt);
    printBuckets("central alone, policy rounds: publish -> written to stream", beforePolicy, beforeSelector);
    printBuckets("central alone, selector rounds: publish -> written to stream", beforeSelector, end);
    System.out.printf(Locale.ROOT, "missing pushes: policy %d, selector %d; policy version != PATCH revision: %d; CDS content mismatches: %d; stream errors: %d; ACKs sent: %d%n",
        policyMissing, selectorMissing, versionMismatch, wrongContent.get(), streamErrors.get(), acks.get());
    return policyMissing + selectorMissing + streamErrors.get() + wrongContent.get() + versionMismatch == 0 ? 0 : 1;
  }

  void policyRound(int round) throws Exception {
    // Toggle across ALL policy rounds (warm-up included): an equal value would be a no-op, no push.
    String mode = policyRoundsRun++ % 2 == 0 ? "enforce" : "shadow";
    String body = "{\"overload\":{\"inbound\":{\"mode\":\"" + mode + "\"}}}";
    Watch w = new Watch(POLICY_TYPE, -1);
    watch = w;
    long[] sent = new long[edges];
    long[] answered = new long[edges];
    String[] revision = new String[edges];
    long start = System.nanoTime();
    ExecutorService pool = Executors.newFixedThreadPool(patchConcurrency);
    try {
      List<Future<?>> futures = new ArrayList<>();
      for (int t = 0; t < patchConcurrency; t++) {
        int first = t;
        futures.add(pool.submit(() -> {
          for (int i = first; i < edges; i += patchConcurrency) {
            sent[i] = System.nanoTime();
            HttpResponse<String> r = call("PATCH", "/configuration/edges/policies?edgeId=" + edgeList[i].id, body, "application/json");
            answered[i] = System.nanoTime();
            if (r.statusCode() != 200) {
              throw new IOException("PATCH " + edgeList[i].id + ": " + r.statusCode() + " " + r.body());
            }
            revision[i] = JSON.readTree(r.body()).path("revisions").path("overload").asText();
          }
          return null;
        }));
      }
      for (Future<?> f : futures) {
        f.get(timeoutMs * 10, TimeUnit.MILLISECONDS);
      }
    } finally {
      pool.shutdownNow();
    }
    boolean all = w.latch.await(timeoutMs, TimeUnit.MILLISECONDS);
    long end = System.nanoTime();
    watch = null;
    if (round < 0) {
      return;
    }
    long last = 0;
    synchronized (w) {
      for (int i = 0; i < edges; i++) {
        if (w.arrival[i] == 0) {
          policyMissing++;
          continue;
        }
        if (!w.version[i].equals(revision[i])) {
          versionMismatch++;
        }
        double fromSent = (w.arrival[i] - sent[i]) / 1e6;
        double fromAnswered = (w.arrival[i] - answered[i]) / 1e6;
        policyFromSent.add(fromSent);
        policyFromAnswered.add(fromAnswered);
        patchRtt.add((answered[i] - sent[i]) / 1e6);
        last = Math.max(last, w.arrival[i]);
        if (samples != null) {
          samples.printf(Locale.ROOT, "policy\t%d\t%s\t%.3f\t%.3f%n", round, edgeList[i].id, fromSent, fromAnswered);
        }
      }
    }
    policyRoundMs.add(((all ? last : end) - start) / 1e6);
  }

  void selectorRound(int round) throws Exception {
    long seconds = round + 100; // warm-up rounds -1, -2, ... -> 99 s, 98 s, ...; changes every round
    String body = "{\"name\":\"fanout\",\"type\":\"EDS\",\"connect_timeout\":\"" + seconds + "s\","
        + "\"eds_cluster_config\":{\"eds_config\":{\"ads\":{}}}}";
    Watch w = new Watch(CDS_TYPE, seconds);
    watch = w;
    long sent = System.nanoTime();
    HttpResponse<String> r = call("PUT", "/configuration/resources/clusters/fanout?selector=env%3Dbench", body, "application/json");
    long answered = System.nanoTime();
    if (r.statusCode() != 200 && r.statusCode() != 201) {
      throw new IOException("PUT cluster: " + r.statusCode() + " " + r.body());
    }
    w.latch.await(timeoutMs, TimeUnit.MILLISECONDS);
    watch = null;
    if (round < 0) {
      return;
    }
    putRtt.add((answered - sent) / 1e6);
    long last = 0;
    synchronized (w) {
      for (int i = 0; i < edges; i++) {
        if (w.arrival[i] == 0) {
          selectorMissing++;
          continue;
        }
        double fromSent = (w.arrival[i] - sent) / 1e6;
        double fromAnswered = (w.arrival[i] - answered) / 1e6;
        selectorFromSent.add(fromSent);
        selectorFromAnswered.add(fromAnswered);
        last = Math.max(last, w.arrival[i]);
        if (samples != null) {
          samples.printf(Locale.ROOT, "selector\t%d\t%s\t%.3f\t%.3f%n", round, edgeList[i].id, fromSent, fromAnswered);
        }
      }
    }
    if (last != 0) {
      selectorAllEdges.add((last - sent) / 1e6);
    }
  }

  HttpResponse<String> call(String method, String path, String body, String contentType) throws IOException, InterruptedException {
    HttpRequest.Builder b = HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + httpPort + path))
        .timeout(Duration.ofMillis(timeoutMs))
        .header("Authorization", "Bearer " + token);
    if (body != null) {
      b.header("Content-Type", contentType).method(method, HttpRequest.BodyPublishers.ofString(body));
    } else {
      b.method(method, HttpRequest.BodyPublishers.noBody());
    }
    return http.send(b.build(), HttpResponse.BodyHandlers.ofString());
  }

  /** Cumulative counts of central_xds_push_latency_seconds by upper bound (seconds; +Inf last). */
  Map<Double, Double> pushLatencyBuckets() throws IOException, InterruptedException {
    HttpResponse<String> r = call("GET", "/metrics", null, null);
    Map<Double, Double> buckets = new java.util.TreeMap<>();
    java.util.regex.Matcher m = java.util.regex.Pattern
        .compile("(?m)^central_xds_push_latency_seconds_bucket\\{le=\"([^\"]+)\"\\} (\\S+)").matcher(r.body());
    while (m.find()) {
      buckets.put(m.group(1).equals("+Inf") ? Double.POSITIVE_INFINITY : Double.parseDouble(m.group(1)),
          Double.parseDouble(m.group(2)));
    }
    return buckets;
  }

  /** The histogram's growth between two reads: count, and the bucket bounds that hold p50 and p99. */
  static void printBuckets(String label, Map<Double, Double> from, Map<Double, Double> to) {
    double total = to.getOrDefault(Double.POSITIVE_INFINITY, 0.0) - from.getOrDefault(Double.POSITIVE_INFINITY, 0.0);
    if (total <= 0) {
      System.out.printf(Locale.ROOT, "%-78s  no samples%n", label);
      return;
    }
    StringBuilder shares = new StringBuilder();
    String p50 = null;
    String p99 = null;
    for (Map.Entry<Double, Double> bucket : to.entrySet()) {
      double share = (bucket.getValue() - from.getOrDefault(bucket.getKey(), 0.0)) / total;
      String bound = bucket.getKey().isInfinite() ? "+Inf" : String.format(Locale.ROOT, "%.1f ms", bucket.getKey() * 1000);
      if (p50 == null && share >= 0.5) {
        p50 = bound;
      }
      if (p99 == null && share >= 0.99) {
        p99 = bound;
      }
      if (!bucket.getKey().isInfinite() && bucket.getKey() >= 0.005 && bucket.getKey() <= 0.1) {
        shares.append(String.format(Locale.ROOT, " <=%s %.1f%%", bound, share * 100));
      }
    }
    System.out.printf(Locale.ROOT, "%-78s  n=%-5.0f p50 <= %s  p99 <= %s |%s%n", label, total, p50, p99, shares);
  }

  static void print(String label, List<Double> values) {
    List<Double> v;
    synchronized (values) {
      v = new ArrayList<>(values);
    }
    if (v.isEmpty()) {
      System.out.printf("%-78s  (no samples)%n", label);
      return;
    }
    Collections.sort(v);
    System.out.printf(Locale.ROOT, "%-78s  n=%-5d p50 %8.2f ms  p99 %8.2f ms  max %8.2f ms  min %8.2f ms%n",
        label, v.size(), pct(v, 50), pct(v, 99), v.get(v.size() - 1), v.get(0));
  }

  /** Nearest-rank percentile of a sorted list. */
  static double pct(List<Double> sorted, double p) {
    int rank = (int) Math.ceil(p / 100.0 * sorted.size());
    return sorted.get(Math.max(0, Math.min(sorted.size() - 1, rank - 1)));
  }

  static String loadavg() {
    try {
      return Files.readString(Path.of("/proc/loadavg")).trim();
    } catch (IOException e) {
      return "n/a";
    }
  }

  void close() {
    closing = true;
    if (samples != null) {
      samples.close();
    }
    if (edgeList != null) {
      for (Edge e : edgeList) {
        if (e != null && e.requests != null) {
          try {
            synchronized (e) {
              e.requests.onCompleted();
            }
          } catch (RuntimeException ignored) {
            // already ended
          }
        }
      }
    }
    for (ManagedChannel c : channelList) {
      c.shutdownNow();
    }
    for (ManagedChannel c : channelList) {
      try {
        c.awaitTermination(5, TimeUnit.SECONDS);
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
      }
    }
  }
}
