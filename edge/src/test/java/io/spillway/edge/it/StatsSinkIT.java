package io.spillway.edge.it;

import static io.spillway.edge.it.EdgeHarness.bootstrap;
import static io.spillway.edge.it.EdgeHarness.cluster;
import static org.assertj.core.api.Assertions.assertThat;

import io.spillway.testkit.OriginServer;
import java.net.DatagramPacket;
import java.net.DatagramSocket;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.SocketTimeoutException;
import java.net.URI;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.function.Predicate;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * stats_sinks in a real edge: a statsd and a DogStatsD listener on UDP 127.0.0.1 receive the lines
 * of requests that passed through the edge (counter deltas that add up to the requests, one timer
 * line per request, Envoy's names and tags), on the flush interval or, with stats_flush_on_admin,
 * after a /stats read. Every wait has a deadline.
 */
class StatsSinkIT {

  private static final long DEADLINE_SECONDS = 15;

  private OriginServer upstream;
  private EdgeHarness edge;
  private final List<DatagramSocket> receivers = new ArrayList<>();

  @BeforeEach
  void origin() {
    upstream = OriginServer.start("upstream");
  }

  @AfterEach
  void close() {
    if (edge != null) {
      edge.close();
    }
    upstream.close();
    receivers.forEach(DatagramSocket::close);
  }

  private DatagramSocket receiver() throws Exception {
    DatagramSocket socket = new DatagramSocket(new InetSocketAddress(InetAddress.getByName("127.0.0.1"), 0));
    socket.setSoTimeout(100);
    receivers.add(socket);
    return socket;
  }

  private void start(String sinks) throws Exception {
    edge = EdgeHarness.start(bootstrap("""
        - match: { prefix: "/" }
          route: { cluster: upstream }
        """, cluster("upstream", "", upstream.port())) + sinks);
  }

  private static String sink(String name, String type, int port, String extra) {
    return """
        - name: %s
          typed_config:
            "@type": type.googleapis.com/envoy.config.metrics.v3.%s
            address: { socket_address: { protocol: UDP, address: 127.0.0.1, port_value: %d } }
        %s
        """.formatted(name, type, port, EdgeHarness.indent(extra, 4));
  }

  /** Datagrams received until {@code done} holds for all their lines, or the deadline passes. */
  private static List<String> receiveUntil(DatagramSocket socket, Predicate<List<String>> done) throws Exception {
    List<String> datagrams = new ArrayList<>();
    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(DEADLINE_SECONDS);
    byte[] buffer = new byte[65_536];
    while (!done.test(lines(datagrams)) && System.nanoTime() < deadline) {
      DatagramPacket packet = new DatagramPacket(buffer, buffer.length);
      try {
        socket.receive(packet);
      } catch (SocketTimeoutException e) {
        continue;
      }
      datagrams.add(new String(packet.getData(), 0, packet.getLength(), StandardCharsets.UTF_8));
    }
    return datagrams;
  }

  private static List<String> lines(List<String> datagrams) {
    return datagrams.stream().flatMap(d -> d.lines()).toList();
  }

  /** The sum of the values of the lines matching {@code name:<value>suffix} exactly. */
  private static long sum(List<String> lines, String name, String suffix) {
    Pattern p = Pattern.compile(Pattern.quote(name) + ":(\\d+)" + Pattern.quote(suffix));
    long sum = 0;
    for (String line : lines) {
      Matcher m = p.matcher(line);
      if (m.matches()) {
        sum += Long.parseLong(m.group(1));
      }
    }
    return sum;
  }

  private static long count(List<String> lines, String regex) {
    return lines.stream().filter(Pattern.compile(regex).asMatchPredicate()).count();
  }

  @Test
  void statsdAndDogStatsdReceiveTheRequestsAsCounterDeltasAndOneTimerLinePerRequest() throws Exception {
    DatagramSocket statsd = receiver();
    DatagramSocket dog = receiver();
    start("stats_flush_interval: 0.05s\nstats_sinks:\n"
        + sink("envoy.stat_sinks.statsd", "StatsdSink", statsd.getLocalPort(), "")
        + sink("envoy.stat_sinks.dog_statsd", "DogStatsdSink", dog.getLocalPort(), """
            prefix: edge
            max_bytes_per_datagram: 512
            """));

    for (int i = 0; i < 3; i++) {
      assertThat(edge.get("/r" + i).statusCode()).isEqualTo(200);
    }
    edge.awaitStat("cluster.upstream.upstream_rq_total", 3);

    List<String> flat = lines(receiveUntil(statsd, l ->
        sum(l, "envoy.cluster.upstream.upstream_rq_total", "|c") == 3
            && count(l, "envoy\\.cluster\\.upstream\\.upstream_rq_time:\\d+\\|ms") == 3
            && sum(l, "envoy.http.ingress.downstream_rq_2xx", "|c") == 3));
    assertThat(sum(flat, "envoy.cluster.upstream.upstream_rq_total", "|c")).isEqualTo(3);
    assertThat(count(flat, "envoy\\.cluster\\.upstream\\.upstream_rq_time:\\d+\\|ms")).isEqualTo(3);
    assertThat(sum(flat, "envoy.http.ingress.downstream_rq_2xx", "|c")).isEqualTo(3);
    assertThat(flat).contains("envoy.server.live:1|g");
    assertThat(flat).noneMatch(l -> l.contains("|#"));

    List<String> dogDatagrams = receiveUntil(dog, l ->
        sum(l, "edge.cluster.upstream_rq_total", "|c|#envoy.cluster_name:upstream") == 3
            && count(l, "edge\\.cluster\\.upstream_rq_time:\\d+\\|ms\\|#envoy\\.cluster_name:upstream") == 3
            && sum(l, "edge.http.downstream_rq_xx",
                "|c|#envoy.response_code_class:2,envoy.http_conn_manager_prefix:ingress") == 3);
    List<String> tagged = lines(dogDatagrams);
    assertThat(sum(tagged, "edge.cluster.upstream_rq_total", "|c|#envoy.cluster_name:upstream")).isEqualTo(3);
    assertThat(count(tagged, "edge\\.cluster\\.upstream_rq_time:\\d+\\|ms\\|#envoy\\.cluster_name:upstream"))
        .isEqualTo(3);
    assertThat(sum(tagged, "edge.http.downstream_rq_xx",
        "|c|#envoy.response_code_class:2,envoy.http_conn_manager_prefix:ingress")).isEqualTo(3);
    assertThat(dogDatagrams).allMatch(d -> d.getBytes(StandardCharsets.UTF_8).length <= 512);
    assertThat(dogDatagrams).anyMatch(d -> d.contains("\n")); // lines are batched
    assertThat(edge.stat("statsd.datagrams_sent")).isPositive();
    assertThat(edge.stat("statsd.datagrams_failed")).isZero();
  }

  @Test
  void stoppingTheEdgeFlushesWhatWasCountedSinceTheLastInterval() throws Exception {
    DatagramSocket statsd = receiver();
    start("stats_flush_interval: 299s\nstats_sinks:\n"
        + sink("envoy.stat_sinks.statsd", "StatsdSink", statsd.getLocalPort(), ""));
    for (int i = 0; i < 2; i++) {
      assertThat(edge.get("/last" + i).statusCode()).isEqualTo(200);
    }
    edge.awaitStat("cluster.upstream.upstream_rq_total", 2);
    assertThat(edge.stat("statsd.datagrams_sent")).as("no flush in 299 s yet").isZero();

    edge.close();
    edge = null;

    List<String> flat = lines(receiveUntil(statsd,
        l -> sum(l, "envoy.cluster.upstream.upstream_rq_total", "|c") == 2));
    assertThat(sum(flat, "envoy.cluster.upstream.upstream_rq_total", "|c")).isEqualTo(2);
  }

  @Test
  void withFlushOnAdminAStatsReadFlushes() throws Exception {
    DatagramSocket statsd = receiver();
    start("stats_flush_on_admin: true\nstats_sinks:\n"
        + sink("envoy.stat_sinks.statsd", "StatsdSink", statsd.getLocalPort(), ""));
    assertThat(edge.get("/once").statusCode()).isEqualTo(200);
    edge.awaitStat("cluster.upstream.upstream_rq_total", 1);
    assertThat(edge.stat("statsd.datagrams_sent")).as("no timer flushes").isZero();

    HttpResponse<String> stats = edge.http.send(HttpRequest.newBuilder(
        URI.create("http://127.0.0.1:" + edge.adminPort() + "/stats")).build(), HttpResponse.BodyHandlers.ofString());
    assertThat(stats.statusCode()).isEqualTo(200);

    List<String> flat = lines(receiveUntil(statsd,
        l -> sum(l, "envoy.cluster.upstream.upstream_rq_total", "|c") == 1));
    assertThat(sum(flat, "envoy.cluster.upstream.upstream_rq_total", "|c")).isEqualTo(1);
  }

  @Test
  void aSinkWithNobodyListeningKeepsFlushingAndTheEdgeServes() throws Exception {
    DatagramSocket closed = receiver();
    int port = closed.getLocalPort();
    closed.close();
    start("stats_flush_interval: 0.02s\nstats_sinks:\n" + sink("envoy.stat_sinks.statsd", "StatsdSink", port, ""));

    assertThat(edge.get("/fine").statusCode()).isEqualTo(200);
    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(DEADLINE_SECONDS);
    while (edge.stat("statsd.datagrams_sent") + edge.stat("statsd.datagrams_failed") < 20
        && System.nanoTime() < deadline) {
      Thread.sleep(10);
    }
    assertThat(edge.stat("statsd.datagrams_sent") + edge.stat("statsd.datagrams_failed")).isGreaterThanOrEqualTo(20);
    assertThat(edge.get("/still-fine").statusCode()).isEqualTo(200);
  }
}
