package io.spillway.edge.upstream;

import static org.assertj.core.api.Assertions.assertThat;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufAllocator;
import io.netty.buffer.Unpooled;
import io.netty.channel.embedded.EmbeddedChannel;
import io.netty.handler.codec.http.DefaultHttpHeadersFactory;
import io.netty.handler.codec.http.HttpClientCodec;
import io.netty.handler.codec.http.HttpHeaders;
import io.spillway.edge.config.ClusterConfig;
import io.spillway.edge.http.message.RequestHeaders;
import io.spillway.edge.http.message.ResponseHeaders;
import io.spillway.edge.stats.StatsStore;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.SplittableRandom;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * An upstream HTTP/1.1 connection carrying an upgrade request, on an {@link EmbeddedChannel} behind
 * Netty's client codec: the head goes out unframed, a 101 removes the codec and the bytes both ways
 * pass as they are, the upstream's close ends the response; a refused upgrade ends as a response and
 * closes the connection; a 101 nobody asked for is a protocol error.
 */
class Http1ConnectionUpgradeTest {

  private final EmbeddedChannel channel = new EmbeddedChannel();
  private final List<String> events = new ArrayList<>();
  private Http1Connection connection;

  @AfterEach
  void close() {
    channel.finishAndReleaseAll();
  }

  private Http1Connection connect() {
    Cluster cluster = Cluster.create(LoadBalancerTest.config(ClusterConfig.LbPolicy.ROUND_ROBIN),
        new ClusterStats(new StatsStore().rootScope().scope("c"), false), 1, 1L, ConnectionGate.OPEN);
    Worker worker = new Worker(0, channel.eventLoop(), new SplittableRandom(1), () -> null, ByteBufAllocator.DEFAULT);
    Host host = LoadBalancerTest.hosts(1).hosts().get(0);
    Http1Pool pool = new Http1Pool(cluster, host, worker);
    connection = new Http1Connection(pool);
    channel.pipeline().addLast("codec", new HttpClientCodec());
    channel.pipeline().addLast("upstream", connection);
    connection.lend();
    connection.bind(new UpstreamResponseListener() {
      @Override
      public void onResponseHeaders(ResponseHeaders headers, boolean endStream) {
        events.add("headers " + headers.status() + " upgrade=" + headers.headers().get("upgrade"));
      }

      @Override
      public void onResponseData(ByteBuf data, boolean endStream) {
        events.add("data " + data.toString(StandardCharsets.ISO_8859_1) + (endStream ? " end" : ""));
        data.release();
      }

      @Override
      public void onResponseTrailers(HttpHeaders trailers) {
        events.add("trailers");
      }

      @Override
      public void onReset(String reason) {
        events.add("reset " + reason);
      }

      @Override
      public void onReadComplete() {}

      @Override
      public void onWritabilityChanged(boolean writable) {}
    });
    return connection;
  }

  private static RequestHeaders request(boolean upgrade) {
    HttpHeaders h = DefaultHttpHeadersFactory.headersFactory().newHeaders();
    if (upgrade) {
      h.set("upgrade", "websocket").set("connection", "upgrade");
    }
    return new RequestHeaders("GET", "http", "example.test", "/ws", h);
  }

  private String written() {
    StringBuilder out = new StringBuilder();
    Object m;
    while ((m = channel.readOutbound()) != null) {
      ByteBuf b = (ByteBuf) m;
      out.append(b.toString(StandardCharsets.ISO_8859_1));
      b.release();
    }
    return out.toString();
  }

  private static ByteBuf bytes(String s) {
    return Unpooled.copiedBuffer(s, StandardCharsets.ISO_8859_1);
  }

  @Test
  void a101TurnsTheConnectionIntoATunnelThatTheUpstreamsCloseEnds() {
    Http1Connection c = connect();

    c.writeHeaders(request(true), true, false);
    String head = written().toLowerCase(java.util.Locale.ROOT);
    assertThat(head).startsWith("get /ws http/1.1\r\n").contains("upgrade: websocket", "connection: upgrade",
        "host: example.test").doesNotContain("transfer-encoding", "content-length").endsWith("\r\n\r\n");

    // The 101 and the first tunnel bytes in one read: the bytes the codec still held come after it.
    channel.writeInbound(bytes("HTTP/1.1 101 Switching Protocols\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n"
        + "Sec-WebSocket-Accept: s3pPLMBiTxaQ9kYGzzhZRbK+xOo=\r\n\r\n\u0081\u0002hi"));
    assertThat(events).containsExactly("headers 101 upgrade=websocket", "data \u0081\u0002hi");
    assertThat(channel.pipeline().get(HttpClientCodec.class)).isNull();

    channel.writeInbound(bytes("HTTP/1.1 200 not a response\r\n\r\n"));
    assertThat(events).last().isEqualTo("data HTTP/1.1 200 not a response\r\n\r\n");
    c.writeData(bytes("client bytes"), false);
    c.flush();
    assertThat(written()).isEqualTo("client bytes");

    channel.close();
    assertThat(events).last().isEqualTo("data  end");
    assertThat(events).noneMatch(e -> e.startsWith("reset"));
  }

  @Test
  void theRequestsEndHalfClosesOrClosesTheTunnel() {
    Http1Connection c = connect();
    c.writeHeaders(request(true), true, false);
    written();
    channel.writeInbound(bytes("HTTP/1.1 101 Switching Protocols\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n\r\n"));

    c.writeData(bytes("last"), true);
    assertThat(written()).isEqualTo("last");
    // An EmbeddedChannel cannot half-close: the connection closes instead, which ends the response.
    assertThat(channel.isOpen()).isFalse();
    assertThat(events).containsExactly("headers 101 upgrade=websocket", "data  end");
  }

  @Test
  void anyOtherAnswerToAnUpgradeIsAResponseAndTheConnectionCloses() {
    Http1Connection c = connect();
    c.writeHeaders(request(true), true, false);
    written();

    channel.writeInbound(bytes("HTTP/1.1 426 Upgrade Required\r\nContent-Length: 2\r\n\r\nno"));

    assertThat(events).containsExactly("headers 426 upgrade=null", "data no end");
    assertThat(channel.isOpen()).isFalse();
    assertThat(c.isUsable()).isFalse();
  }

  @Test
  void a101ToARequestThatDidNotAskIsAProtocolError() {
    Http1Connection c = connect();
    c.writeHeaders(request(false), false, true);
    written();

    channel.writeInbound(bytes("HTTP/1.1 101 Switching Protocols\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n\r\n"));

    assertThat(events).containsExactly(
        "reset protocol error: 101 Switching Protocols to a request that did not ask to upgrade");
    assertThat(channel.isOpen()).isFalse();
  }
}
