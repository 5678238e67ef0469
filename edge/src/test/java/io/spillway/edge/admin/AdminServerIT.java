package io.spillway.edge.admin;

import static org.assertj.core.api.Assertions.assertThat;

import io.netty.channel.EventLoopGroup;
import io.netty.channel.MultiThreadIoEventLoopGroup;
import io.netty.channel.nio.NioIoHandler;
import io.spillway.edge.config.SocketAddress;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/** The admin listener over a real loopback socket: dispatch, 404, POST-only paths, query decoding. */
class AdminServerIT {
  private final FakeAdminContext context = new FakeAdminContext();
  private final HttpClient client = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(5)).build();
  private EventLoopGroup group;
  private AdminServer server;

  @BeforeEach
  void start() throws Exception {
    group = new MultiThreadIoEventLoopGroup(1, NioIoHandler.newFactory());
    server = new AdminServer(context);
    server.bind(group, new SocketAddress("127.0.0.1", 0));
  }

  @AfterEach
  void stop() {
    server.close();
    group.shutdownGracefully(0, 1, TimeUnit.SECONDS).awaitUninterruptibly(5, TimeUnit.SECONDS);
    context.close();
  }

  @Test
  void getOnAMutatingEndpointIs405AndChangesNothing() throws Exception {
    HttpResponse<String> r = send("GET", "/healthcheck/fail");

    assertThat(r.statusCode()).isEqualTo(405);
    assertThat(r.body()).contains("POST");
    assertThat(context.healthCheckFailed).isFalse();
    assertThat(send("GET", "/ready").statusCode()).isEqualTo(200);
  }

  @Test
  void postOnAMutatingEndpointActs() throws Exception {
    HttpResponse<String> r = send("POST", "/healthcheck/fail");

    assertThat(r.statusCode()).isEqualTo(200);
    assertThat(r.body()).isEqualTo("OK\n");
    HttpResponse<String> ready = send("GET", "/ready");
    assertThat(ready.statusCode()).isEqualTo(503);
    assertThat(ready.body()).isEqualTo("DRAINING\n");
  }

  @Test
  void unknownPathIs404WithTheIndex() throws Exception {
    HttpResponse<String> r = send("GET", "/nope");

    assertThat(r.statusCode()).isEqualTo(404);
    assertThat(r.body()).startsWith("invalid path: /nope\nadmin commands are:\n");
  }

  @Test
  void statsFilterArrivesAsWrittenAndContentTypesAreEnvoys() throws Exception {
    context.stats.rootScope().scope("server").counter("test_total").add(7);

    HttpResponse<String> text = send("GET", "/stats?filter=%5Eserver%5C.test_.%2B");
    HttpResponse<String> prometheus = send("GET", "/stats/prometheus?filter=test_total");

    assertThat(text.statusCode()).isEqualTo(200);
    assertThat(text.body()).isEqualTo("server.test_total: 7\n");
    assertThat(prometheus.headers().firstValue("content-type")).contains("text/plain; version=0.0.4; charset=utf-8");
    assertThat(prometheus.body()).contains("envoy_server_test_total{} 7");
    assertThat(send("GET", "/stats?filter=(").statusCode()).isEqualTo(400);
  }

  @Test
  void quitquitquitAnswersBeforeExiting() throws Exception {
    HttpResponse<String> r = send("POST", "/quitquitquit");

    assertThat(r.statusCode()).isEqualTo(200);
    assertThat(r.body()).isEqualTo("OK\n");
    // exitAfterDrain runs on the admin loop once the answer is written; a request after it is served
    // after it on the same loop.
    send("GET", "/ready");
    assertThat(context.exitCalls).containsExactly(Duration.ZERO);
  }

  private HttpResponse<String> send(String method, String pathAndQuery) throws Exception {
    URI uri = URI.create("http://127.0.0.1:" + server.localAddress().getPort() + pathAndQuery);
    HttpRequest request = HttpRequest.newBuilder(uri)
        .method(method, HttpRequest.BodyPublishers.noBody())
        .timeout(Duration.ofSeconds(10))
        .build();
    return client.send(request, HttpResponse.BodyHandlers.ofString());
  }
}
