package io.spillway.edge.it;

import static io.spillway.edge.it.EdgeHarness.bootstrap;
import static io.spillway.edge.it.EdgeHarness.cluster;
import static org.assertj.core.api.Assertions.assertThat;

import io.netty.bootstrap.ServerBootstrap;
import io.netty.channel.Channel;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import io.netty.channel.ChannelInitializer;
import io.netty.channel.EventLoopGroup;
import io.netty.channel.MultiThreadIoEventLoopGroup;
import io.netty.channel.nio.NioIoHandler;
import io.netty.channel.socket.SocketChannel;
import io.netty.channel.socket.nio.NioServerSocketChannel;
import io.netty.handler.codec.http2.DefaultHttp2DataFrame;
import io.netty.handler.codec.http2.DefaultHttp2Headers;
import io.netty.handler.codec.http2.DefaultHttp2HeadersFrame;
import io.netty.handler.codec.http2.DefaultHttp2WindowUpdateFrame;
import io.netty.handler.codec.http2.Http2DataFrame;
import io.netty.handler.codec.http2.Http2FrameCodecBuilder;
import io.netty.handler.codec.http2.Http2FrameTypes;
import io.netty.handler.codec.http2.Http2Headers;
import io.netty.handler.codec.http2.Http2HeadersFrame;
import io.netty.util.ReferenceCountUtil;
import io.spillway.testkit.RawHttp2;
import io.spillway.testkit.RawHttp2.Frame;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * CONNECT forwarded to the upstream as a CONNECT (a {@code connect_matcher} route without
 * {@code connect_config}), through a real edge on 127.0.0.1: to an HTTP/1.1 upstream that answers
 * 200 and echoes, and to an HTTP/2 upstream (Netty's frame codec) that does the same; the tunnel
 * relays after the upstream's 2xx and ends with it.
 */
class ConnectForwardIT {
  private static final Duration WAIT = Duration.ofSeconds(10);

  private Http1ConnectProxy h1Proxy;
  private Http2ConnectProxy h2Proxy;
  private EdgeHarness edge;
  private final List<AutoCloseable> closeables = new ArrayList<>();

  @BeforeEach
  void start() throws Exception {
    h1Proxy = new Http1ConnectProxy();
    h2Proxy = new Http2ConnectProxy();
    String routes = """
        - match:
            connect_matcher: {}
            headers: [{name: ":authority", string_match: {exact: "h2.example:443"}}]
          route: {cluster: h2proxy}
        - match: {connect_matcher: {}}
          route: {cluster: h1proxy}
        """;
    edge = EdgeHarness.start(bootstrap("upgrade_configs: [{upgrade_type: CONNECT}]", routes,
        cluster("h1proxy", "", h1Proxy.port()) + "\n" + cluster("h2proxy", """
            typed_extension_protocol_options:
              envoy.extensions.upstreams.http.v3.HttpProtocolOptions:
                "@type": type.googleapis.com/envoy.extensions.upstreams.http.v3.HttpProtocolOptions
                explicit_http_config: {http2_protocol_options: {}}""", h2Proxy.port())));
  }

  @AfterEach
  void stop() throws Exception {
    for (AutoCloseable c : closeables) {
      c.close();
    }
    if (edge != null) {
      edge.close();
    }
    h1Proxy.close();
    h2Proxy.close();
  }

  @Test
  void http1ConnectGoesUpstreamAsAConnectAndTunnelsAfterIts200() throws Exception {
    Socket s = new Socket();
    closeables.add(s);
    s.connect(new InetSocketAddress("127.0.0.1", edge.port()), 5_000);
    s.setSoTimeout(10_000);
    OutputStream out = s.getOutputStream();
    InputStream in = s.getInputStream();
    out.write("CONNECT echo.example:443 HTTP/1.1\r\nHost: echo.example:443\r\n\r\n".getBytes(StandardCharsets.US_ASCII));
    assertThat(ConnectIT.readHead(in)).startsWith("HTTP/1.1 200 ");
    String upstreamHead = h1Proxy.heads.poll(10, TimeUnit.SECONDS);
    assertThat(upstreamHead).startsWith("CONNECT echo.example:443 HTTP/1.1\r\n");
    assertThat(upstreamHead.toLowerCase()).contains("host: echo.example:443\r\n").doesNotContain("upgrade:");

    out.write("ping".getBytes(StandardCharsets.US_ASCII));
    assertThat(new String(in.readNBytes(4), StandardCharsets.US_ASCII)).isEqualTo("ping");
    s.shutdownOutput();
    assertThat(in.read()).isEqualTo(-1);
    assertThat(edge.awaitStat("http.ingress.downstream_cx_upgrades_active", 0)).isEqualTo(0);
    assertThat(edge.stat("http.ingress.downstream_cx_upgrades_total")).isEqualTo(1);
    assertThat(edge.awaitStat("cluster.h1proxy.upstream_cx_active", 0)).isEqualTo(0);
  }

  @Test
  void http2ConnectGoesToAnHttp2UpstreamAsAConnectStream() throws Exception {
    RawHttp2 h2 = RawHttp2.connect(edge.port());
    closeables.add(h2);
    h2.preface();
    h2.awaitServerSettings(WAIT);
    h2.headers(1, new DefaultHttp2Headers(false).method("CONNECT").authority("h2.example:443"), false);
    Frame response = h2.awaitFrame(f -> f.type() == Http2FrameTypes.HEADERS && f.streamId() == 1, WAIT).orElseThrow();
    assertThat(response.headers().status().toString()).isEqualTo("200");
    Http2Headers upstream = h2Proxy.requests.poll(10, TimeUnit.SECONDS);
    assertThat(upstream.method().toString()).isEqualTo("CONNECT");
    assertThat(upstream.authority().toString()).isEqualTo("h2.example:443");
    assertThat(upstream.path()).isNull();
    assertThat(upstream.scheme()).isNull();

    h2.data(1, "hello".getBytes(StandardCharsets.US_ASCII), true);
    ByteArrayOutputStream got = new ByteArrayOutputStream();
    Frame last;
    do {
      last = h2.awaitFrame(f -> f.type() == Http2FrameTypes.DATA && f.streamId() == 1, WAIT).orElseThrow();
      got.writeBytes(last.payload());
    } while ((last.flags() & RawHttp2.END_STREAM) == 0);
    assertThat(got.toString(StandardCharsets.US_ASCII)).isEqualTo("hello");
    assertThat(edge.awaitStat("http.ingress.downstream_cx_upgrades_active", 0)).isEqualTo(0);
    assertThat(edge.stat("http.ingress.downstream_cx_upgrades_total")).isEqualTo(1);
  }

  /** An HTTP/1.1 CONNECT proxy: records each request head, answers 200, then echoes until the client's end. */
  private static final class Http1ConnectProxy implements AutoCloseable {
    final BlockingQueue<String> heads = new LinkedBlockingQueue<>();
    private final ServerSocket server;

    Http1ConnectProxy() throws IOException {
      server = new ServerSocket(0, 16, java.net.InetAddress.getLoopbackAddress());
      Thread.ofVirtual().start(() -> {
        while (!server.isClosed()) {
          try {
            Socket s = server.accept();
            Thread.ofVirtual().start(() -> serve(s));
          } catch (IOException closed) {
            return;
          }
        }
      });
    }

    int port() {
      return server.getLocalPort();
    }

    private void serve(Socket s) {
      try (s) {
        InputStream in = s.getInputStream();
        OutputStream out = s.getOutputStream();
        heads.add(ConnectIT.readHead(in));
        out.write("HTTP/1.1 200 Connection Established\r\n\r\n".getBytes(StandardCharsets.US_ASCII));
        out.flush();
        byte[] buf = new byte[8192];
        int n;
        while ((n = in.read(buf)) >= 0) {
          out.write(buf, 0, n);
          out.flush();
        }
      } catch (IOException ignored) {
        // the connection went away
      }
    }

    @Override
    public void close() throws IOException {
      server.close();
    }
  }

  /** An h2c server that answers a CONNECT stream with 200 and echoes its DATA, END_STREAM included. */
  private static final class Http2ConnectProxy implements AutoCloseable {
    final BlockingQueue<Http2Headers> requests = new LinkedBlockingQueue<>();
    private final EventLoopGroup group = new MultiThreadIoEventLoopGroup(1, NioIoHandler.newFactory());
    private final Channel server;

    Http2ConnectProxy() throws InterruptedException {
      server = new ServerBootstrap().group(group).channel(NioServerSocketChannel.class)
          .childHandler(new ChannelInitializer<SocketChannel>() {
            @Override
            protected void initChannel(SocketChannel ch) {
              ch.pipeline().addLast(Http2FrameCodecBuilder.forServer().build(), new ChannelInboundHandlerAdapter() {
                @Override
                public void channelRead(ChannelHandlerContext ctx, Object msg) {
                  if (msg instanceof Http2HeadersFrame h) {
                    requests.add(h.headers());
                    ctx.writeAndFlush(new DefaultHttp2HeadersFrame(new DefaultHttp2Headers().status("200"))
                        .stream(h.stream()));
                  } else if (msg instanceof Http2DataFrame d) {
                    int bytes = d.initialFlowControlledBytes();
                    ctx.write(new DefaultHttp2DataFrame(d.content().retain(), d.isEndStream()).stream(d.stream()));
                    if (bytes > 0) {
                      ctx.write(new DefaultHttp2WindowUpdateFrame(bytes).stream(d.stream()));
                    }
                    ctx.flush();
                  }
                  ReferenceCountUtil.release(msg);
                }
              });
            }
          }).bind("127.0.0.1", 0).sync().channel();
    }

    int port() {
      return ((InetSocketAddress) server.localAddress()).getPort();
    }

    @Override
    public void close() {
      server.close();
      group.shutdownGracefully(0, 1, TimeUnit.SECONDS);
    }
  }
}
