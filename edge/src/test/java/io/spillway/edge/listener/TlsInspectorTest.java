package io.spillway.edge.listener;

import static org.assertj.core.api.Assertions.assertThat;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import io.netty.channel.embedded.EmbeddedChannel;
import io.spillway.edge.stats.StatsStore;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import javax.net.ssl.SNIHostName;
import javax.net.ssl.SSLContext;
import javax.net.ssl.SSLEngine;
import javax.net.ssl.SSLParameters;
import org.junit.jupiter.api.Test;

/** The TLS inspector on a real JDK ClientHello: SNI and ALPN found, bytes passed on untouched. */
class TlsInspectorTest {

  private final List<TlsInspector.Result> decided = new ArrayList<>();
  private final ByteBuf passedOn = Unpooled.buffer();

  private static byte[] clientHello(String sni, String... alpn) throws Exception {
    SSLEngine engine = SSLContext.getDefault().createSSLEngine("ignored", 443);
    engine.setUseClientMode(true);
    SSLParameters p = engine.getSSLParameters();
    if (sni != null) {
      p.setServerNames(List.of(new SNIHostName(sni)));
    }
    p.setApplicationProtocols(alpn);
    engine.setSSLParameters(p);
    ByteBuffer out = ByteBuffer.allocate(engine.getSession().getPacketBufferSize());
    engine.wrap(ByteBuffer.allocate(0), out);
    out.flip();
    byte[] bytes = new byte[out.remaining()];
    out.get(bytes);
    return bytes;
  }

  private EmbeddedChannel channel(long timeoutMillis, boolean continueOnTimeout, TlsInspectorStats stats) {
    EmbeddedChannel ch = new EmbeddedChannel();
    ch.pipeline().addLast(new TlsInspector((ctx, r) -> {
      decided.add(r);
      ctx.pipeline().addLast(new ChannelInboundHandlerAdapter() {
        @Override
        public void channelRead(ChannelHandlerContext c, Object msg) {
          passedOn.writeBytes((ByteBuf) msg);
          ((ByteBuf) msg).release();
        }
      });
    }, stats, timeoutMillis, continueOnTimeout));
    return ch;
  }

  private static TlsInspectorStats stats(StatsStore registry) {
    return new TlsInspectorStats(registry.rootScope().scope("tls_inspector"), registry.rootScope().scope("listener"));
  }

  private static long count(StatsStore store, String name) {
    return ((io.spillway.edge.stats.Counter) store.find(name).orElseThrow()).value();
  }

  @Test
  void findsServerNameAndAlpnAndPassesTheHelloOnIntact() throws Exception {
    StatsStore registry = new StatsStore();
    byte[] hello = clientHello("API.example.com", "h2", "http/1.1");
    EmbeddedChannel ch = channel(0, false, stats(registry));
    // One byte at a time: the inspector waits for the whole ClientHello.
    for (int i = 0; i < 10; i++) {
      ch.writeInbound(Unpooled.wrappedBuffer(hello, i, 1));
    }
    assertThat(decided).isEmpty();
    ch.writeInbound(Unpooled.wrappedBuffer(hello, 10, hello.length - 10));

    assertThat(decided).containsExactly(new TlsInspector.Result(true, "api.example.com", List.of("h2", "http/1.1")));
    assertThat(ch.pipeline().get(TlsInspector.class)).isNull();
    byte[] seen = new byte[passedOn.readableBytes()];
    passedOn.readBytes(seen);
    assertThat(seen).isEqualTo(hello);
    assertThat(count(registry, "tls_inspector.tls_found")).isEqualTo(1);
    assertThat(count(registry, "tls_inspector.sni_found")).isEqualTo(1);
    assertThat(count(registry, "tls_inspector.alpn_found")).isEqualTo(1);
  }

  @Test
  void aHelloWithoutSniOrAlpnIsStillTls() throws Exception {
    StatsStore registry = new StatsStore();
    EmbeddedChannel ch = channel(0, false, stats(registry));
    ch.writeInbound(Unpooled.wrappedBuffer(clientHello(null)));

    assertThat(decided).containsExactly(new TlsInspector.Result(true, "", List.of()));
    assertThat(count(registry, "tls_inspector.sni_not_found")).isEqualTo(1);
    assertThat(count(registry, "tls_inspector.alpn_not_found")).isEqualTo(1);
  }

  @Test
  void plaintextIsRawBuffer() {
    StatsStore registry = new StatsStore();
    EmbeddedChannel ch = channel(0, false, stats(registry));
    ch.writeInbound(Unpooled.copiedBuffer("GET / HTTP/1.1\r\n", StandardCharsets.US_ASCII));

    assertThat(decided).containsExactly(TlsInspector.Result.RAW);
    assertThat(passedOn.toString(StandardCharsets.US_ASCII)).isEqualTo("GET / HTTP/1.1\r\n");
    assertThat(count(registry, "tls_inspector.tls_not_found")).isEqualTo(1);
  }

  @Test
  void theTimeoutClosesOrContinuesWithoutResults() throws Exception {
    StatsStore registry = new StatsStore();
    EmbeddedChannel closing = channel(1000, false, stats(registry));
    closing.writeInbound(Unpooled.wrappedBuffer(clientHello("a.com"), 0, 3));
    closing.advanceTimeBy(1000, java.util.concurrent.TimeUnit.MILLISECONDS);
    closing.runScheduledPendingTasks();
    assertThat(closing.isOpen()).isFalse();
    assertThat(decided).isEmpty();

    EmbeddedChannel continuing = channel(1000, true, stats(registry));
    continuing.writeInbound(Unpooled.wrappedBuffer(clientHello("a.com"), 0, 3));
    continuing.advanceTimeBy(1000, java.util.concurrent.TimeUnit.MILLISECONDS);
    continuing.runScheduledPendingTasks();
    assertThat(continuing.isOpen()).isTrue();
    assertThat(decided).containsExactly(TlsInspector.Result.RAW);
    assertThat(passedOn.readableBytes()).as("the bytes held go on").isEqualTo(3);
    assertThat(count(registry, "listener.downstream_pre_cx_timeout")).isEqualTo(2);
  }
}
