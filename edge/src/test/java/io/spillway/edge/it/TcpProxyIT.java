package io.spillway.edge.it;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.netty.bootstrap.ServerBootstrap;
import io.netty.buffer.ByteBuf;
import io.netty.channel.Channel;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import io.netty.channel.ChannelInitializer;
import io.netty.channel.ChannelOption;
import io.netty.channel.EventLoopGroup;
import io.netty.channel.MultiThreadIoEventLoopGroup;
import io.netty.channel.nio.NioIoHandler;
import io.netty.channel.socket.ChannelInputShutdownEvent;
import io.netty.channel.socket.SocketChannel;
import io.netty.channel.socket.nio.NioServerSocketChannel;
import io.netty.handler.ssl.JdkSslContext;
import io.netty.handler.ssl.SslContext;
import io.netty.handler.ssl.SslContextBuilder;
import io.netty.handler.ssl.SslProvider;
import io.spillway.testkit.TestPem;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.security.cert.X509Certificate;
import java.util.List;
import java.util.concurrent.TimeUnit;
import javax.net.ssl.SNIHostName;
import javax.net.ssl.SSLContext;
import javax.net.ssl.SSLParameters;
import javax.net.ssl.SSLSocket;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * {@code tcp_proxy}, SNI filter chain matching with the TLS inspector, TLS passthrough and
 * downstream mTLS, on 127.0.0.1 with real sockets: a Netty echo origin (which answers a half-close
 * with its own), a TLS echo origin, JDK sockets as clients, the test certificates of {@link TestPem}.
 */
class TcpProxyIT {

  private final EventLoopGroup group = new MultiThreadIoEventLoopGroup(1, NioIoHandler.newFactory());

  @AfterEach
  void stop() {
    group.shutdownGracefully(0, 0, TimeUnit.SECONDS).syncUninterruptibly();
  }

  /** Echoes every byte; a FIN is answered with a FIN. With {@code tls}, behind the "server" certificate. */
  private int echo(SslContext tls) throws InterruptedException {
    Channel server = new ServerBootstrap().group(group).channel(NioServerSocketChannel.class)
        .childOption(ChannelOption.ALLOW_HALF_CLOSURE, true)
        .childHandler(new ChannelInitializer<SocketChannel>() {
          @Override
          protected void initChannel(SocketChannel ch) {
            if (tls != null) {
              ch.pipeline().addLast(tls.newHandler(ch.alloc()));
            }
            ch.pipeline().addLast(new ChannelInboundHandlerAdapter() {
              @Override
              public void channelRead(ChannelHandlerContext ctx, Object msg) {
                ctx.writeAndFlush(msg);
              }

              @Override
              public void userEventTriggered(ChannelHandlerContext ctx, Object evt) {
                if (evt instanceof ChannelInputShutdownEvent) {
                  ch.shutdownOutput();
                }
              }

              @Override
              public void exceptionCaught(ChannelHandlerContext ctx, Throwable cause) {
                ctx.close();
              }
            });
          }
        })
        .bind(new InetSocketAddress("127.0.0.1", 0)).sync().channel();
    return ((InetSocketAddress) server.localAddress()).getPort();
  }

  private static int closedPort() throws IOException {
    try (ServerSocket s = new ServerSocket(0, 1, java.net.InetAddress.getLoopbackAddress())) {
      return s.getLocalPort();
    }
  }

  private static String tcpProxy(String statPrefix, String cluster, String extra) {
    return """
        filters:
        - name: envoy.filters.network.tcp_proxy
          typed_config:
            "@type": type.googleapis.com/envoy.extensions.filters.network.tcp_proxy.v3.TcpProxy
            stat_prefix: %s
            cluster: %s
        %s""".formatted(statPrefix, cluster, EdgeHarness.indent(extra, 4));
  }

  private static String terminate(String cert, String extra) {
    return """
        transport_socket:
          name: envoy.transport_sockets.tls
          typed_config:
            "@type": type.googleapis.com/envoy.extensions.transport_sockets.tls.v3.DownstreamTlsContext
        %s
            common_tls_context:
              tls_certificates:
              - certificate_chain: {filename: "%s"}
                private_key: {filename: "%s"}
        """.formatted(EdgeHarness.indent(extra, 4), TestPem.certificate(cert), TestPem.key(cert));
  }

  private static String edge(String listenerExtra, List<String> chains, String clusters) {
    StringBuilder items = new StringBuilder();
    for (String c : chains) {
      String[] lines = c.strip().split("\n");
      items.append("- ").append(lines[0]).append('\n');
      for (int i = 1; i < lines.length; i++) {
        items.append("  ").append(lines[i]).append('\n');
      }
    }
    return """
        admin:
          address: { socket_address: { address: 127.0.0.1, port_value: 0 } }
        static_resources:
          listeners:
          - name: main
            address: { socket_address: { address: 127.0.0.1, port_value: 0 } }
        %s
            filter_chains:
        %s
          clusters:
        %s
        """.formatted(EdgeHarness.indent(listenerExtra, 4), EdgeHarness.indent(items.toString(), 4),
        EdgeHarness.indent(clusters, 2));
  }

  private static byte[] readAll(InputStream in) throws IOException {
    ByteArrayOutputStream out = new ByteArrayOutputStream();
    in.transferTo(out);
    return out.toByteArray();
  }

  private static byte[] readExactly(InputStream in, int n) throws IOException {
    byte[] b = in.readNBytes(n);
    assertThat(b).hasSize(n);
    return b;
  }

  @Test
  void anOriginsFinComesAfterEveryByteItSentToASlowClient() throws Exception {
    byte[] big = new byte[2 * 1024 * 1024];
    new java.util.Random(11).nextBytes(big);
    try (ServerSocket origin = new ServerSocket(0, 50, java.net.InetAddress.getLoopbackAddress())) {
      Thread server = Thread.ofVirtual().start(() -> {
        try (Socket c = origin.accept()) {
          c.getOutputStream().write(big);
          c.shutdownOutput(); // all of it, then FIN, while the client has read almost nothing
          c.getInputStream().transferTo(java.io.OutputStream.nullOutputStream());
        } catch (IOException e) {
          throw new java.io.UncheckedIOException(e);
        }
      });
      try (EdgeHarness edge = EdgeHarness.start(edge("", List.of(tcpProxy("slow", "origin", "")),
          EdgeHarness.cluster("origin", "", origin.getLocalPort())));
          Socket s = new Socket()) {
        s.setReceiveBufferSize(16 * 1024);
        s.connect(new InetSocketAddress("127.0.0.1", edge.port()));
        s.setSoTimeout(10_000);
        ByteArrayOutputStream got = new ByteArrayOutputStream();
        byte[] chunk = new byte[8 * 1024];
        for (int n; (n = s.getInputStream().read(chunk)) >= 0; ) {
          got.write(chunk, 0, n);
          if (got.size() % (64 * 1024) < chunk.length) {
            Thread.sleep(2); // a slow reader: the edge holds what the socket cannot take yet
          }
        }
        assertThat(got.size()).isEqualTo(big.length);
        assertThat(got.toByteArray()).isEqualTo(big);
      }
      server.join(10_000);
    }
  }

  @Test
  void relaysBytesBothWaysWithBackPressureAndPassesTheHalfCloseOn() throws Exception {
    int origin = echo(null);
    try (EdgeHarness edge = EdgeHarness.start(edge("", List.of(tcpProxy("echo", "echo", "")),
        EdgeHarness.cluster("echo", "", origin)))) {
      byte[] big = new byte[4 * 1024 * 1024];
      new java.util.Random(7).nextBytes(big);
      try (Socket s = new Socket("127.0.0.1", edge.port())) {
        s.setSoTimeout(10_000);
        s.getOutputStream().write("hello".getBytes(StandardCharsets.US_ASCII));
        assertThat(new String(readExactly(s.getInputStream(), 5), StandardCharsets.US_ASCII)).isEqualTo("hello");
        // 4 MiB, more than the edge buffers (1 MiB per connection): written while it is read back.
        Thread writer = Thread.ofVirtual().start(() -> {
          try {
            s.getOutputStream().write(big);
            s.shutdownOutput(); // half-close: the origin answers with its own FIN
          } catch (IOException e) {
            throw new java.io.UncheckedIOException(e);
          }
        });
        byte[] back = readAll(s.getInputStream());
        writer.join(10_000);
        assertThat(back).isEqualTo(big);
      }
      long total = big.length + 5;
      assertThat(edge.awaitStat("tcp.echo.downstream_cx_total", 1)).isEqualTo(1);
      assertThat(edge.awaitStat("tcp.echo.downstream_cx_rx_bytes_total", total)).isEqualTo(total);
      assertThat(edge.awaitStat("tcp.echo.downstream_cx_tx_bytes_total", total)).isEqualTo(total);
      assertThat(edge.stat("cluster.echo.upstream_cx_total")).isEqualTo(1);
      assertThat(edge.stat("cluster.echo.upstream_cx_tx_bytes_total")).isEqualTo(total);
      assertThat(edge.awaitStat("cluster.echo.upstream_cx_active", 0)).isZero();
      assertThat(edge.stat("http.ingress.downstream_cx_total")).as("not an HTTP connection").isZero();
    }
  }

  @Test
  void anIdleConnectionIsClosedAfterTheIdleTimeout() throws Exception {
    int origin = echo(null);
    try (EdgeHarness edge = EdgeHarness.start(edge("", List.of(tcpProxy("echo", "echo", "idle_timeout: 0.3s")),
        EdgeHarness.cluster("echo", "", origin)))) {
      try (Socket s = new Socket("127.0.0.1", edge.port())) {
        s.setSoTimeout(10_000);
        s.getOutputStream().write('x');
        assertThat(s.getInputStream().read()).isEqualTo('x');
        assertThat(s.getInputStream().read()).as("closed by the edge").isEqualTo(-1);
      }
      assertThat(edge.awaitStat("tcp.echo.idle_timeout", 1)).isEqualTo(1);
    }
  }

  @Test
  void anUnreachableUpstreamClosesTheDownstreamAfterEveryAttempt() throws Exception {
    int down = closedPort();
    try (EdgeHarness edge = EdgeHarness.start(edge("", List.of(tcpProxy("down", "down", "max_connect_attempts: 2")),
        EdgeHarness.cluster("down", "", down)))) {
      try (Socket s = new Socket("127.0.0.1", edge.port())) {
        s.setSoTimeout(10_000);
        assertThat(s.getInputStream().read()).isEqualTo(-1);
      }
      assertThat(edge.awaitStat("cluster.down.upstream_cx_connect_fail", 2)).isEqualTo(2);
      assertThat(edge.stat("tcp.down.downstream_cx_total")).isEqualTo(1);
    }
  }

  @Test
  void maxDownstreamConnectionDurationAndMaxConnectionsAreEnforced() throws Exception {
    int origin = echo(null);
    String cluster = EdgeHarness.cluster("echo", "circuit_breakers: {thresholds: [{max_connections: 1}]}", origin);
    try (EdgeHarness edge = EdgeHarness.start(edge("", List.of(tcpProxy("echo", "echo",
        "max_downstream_connection_duration: 0.5s")), cluster))) {
      try (Socket first = new Socket("127.0.0.1", edge.port())) {
        first.setSoTimeout(10_000);
        first.getOutputStream().write('a');
        assertThat(first.getInputStream().read()).isEqualTo('a');
        try (Socket second = new Socket("127.0.0.1", edge.port())) {
          second.setSoTimeout(10_000);
          assertThat(second.getInputStream().read()).as("over max_connections: closed").isEqualTo(-1);
        }
        assertThat(edge.awaitStat("cluster.echo.upstream_cx_overflow", 1)).isEqualTo(1);
        assertThat(first.getInputStream().read()).as("closed at its maximum duration").isEqualTo(-1);
      }
      assertThat(edge.awaitStat("tcp.echo.max_downstream_connection_duration", 1)).isEqualTo(1);
      assertThat(edge.awaitStat("cluster.echo.upstream_cx_active", 0)).isZero();
    }
  }

  /**
   * A JDK TLS client trusting the "server" and "other" certificates, with the "client" certificate when asked. A new
   * context per connection: a client's session cache would otherwise resume the previous
   * connection's session.
   */
  private static SSLContext client(boolean withCertificate) throws Exception {
    SslContextBuilder b = SslContextBuilder.forClient().sslProvider(SslProvider.JDK)
        .trustManager(certificate("server"), certificate("other"));
    if (withCertificate) {
      b.keyManager(TestPem.certificate("client").toFile(), TestPem.key("client").toFile());
    }
    return ((JdkSslContext) b.build()).context();
  }

  private static X509Certificate certificate(String name) throws Exception {
    try (InputStream in = java.nio.file.Files.newInputStream(TestPem.certificate(name))) {
      return (X509Certificate) java.security.cert.CertificateFactory.getInstance("X.509").generateCertificate(in);
    }
  }

  private static SSLSocket connect(SSLContext ctx, int port, String sni) throws IOException {
    SSLSocket s = (SSLSocket) ctx.getSocketFactory().createSocket("127.0.0.1", port);
    s.setSoTimeout(10_000);
    SSLParameters p = s.getSSLParameters();
    p.setServerNames(List.of(new SNIHostName(sni)));
    s.setSSLParameters(p);
    return s;
  }

  private static String peerName(SSLSocket s) throws IOException {
    s.startHandshake();
    return ((X509Certificate) s.getSession().getPeerCertificates()[0]).getSubjectX500Principal().getName();
  }

  @Test
  void theServerNameChoosesTheChainTerminatingOrPassingTlsThrough() throws Exception {
    int plainEcho = echo(null);
    int tlsEcho = echo(SslContextBuilder.forServer(TestPem.certificate("server").toFile(),
        TestPem.key("server").toFile()).build());
    String http = """
        filter_chain_match: {server_names: [backend.test]}
        %s
        filters:
        - name: envoy.filters.network.http_connection_manager
          typed_config:
            "@type": type.googleapis.com/envoy.extensions.filters.network.http_connection_manager.v3.HttpConnectionManager
            stat_prefix: ingress
            route_config:
              virtual_hosts:
              - name: all
                domains: ["*"]
                routes: [{match: {prefix: "/"}, direct_response: {status: 200, body: {inline_string: from-hcm}}}]
            http_filters: [{name: envoy.filters.http.router}]
        """.formatted(terminate("server", ""));
    String otherTcp = "filter_chain_match: {server_names: [other.test]}\n" + terminate("other", "")
        + tcpProxy("terminated", "echo", "");
    String passthrough = "filter_chain_match: {server_names: [\"*.wild.test\"]}\n"
        + tcpProxy("passthrough", "tls_echo", "");
    String clusters = EdgeHarness.cluster("echo", "", plainEcho) + "\n" + EdgeHarness.cluster("tls_echo", "", tlsEcho);
    try (EdgeHarness edge = EdgeHarness.start(edge("listener_filters: [{name: envoy.filters.listener.tls_inspector}]",
        List.of(http, otherTcp, passthrough), clusters))) {

      try (SSLSocket s = connect(client(false), edge.port(), "backend.test")) {
        assertThat(peerName(s)).contains("CN=backend.test");
        s.getOutputStream().write("GET / HTTP/1.1\r\nHost: backend.test\r\nConnection: close\r\n\r\n"
            .getBytes(StandardCharsets.US_ASCII));
        String response = new String(readAll(s.getInputStream()), StandardCharsets.US_ASCII);
        assertThat(response).startsWith("HTTP/1.1 200").endsWith("from-hcm");
      }
      try (SSLSocket s = connect(client(false), edge.port(), "other.test")) {
        assertThat(peerName(s)).as("the edge's other certificate").contains("CN=other.test");
        s.getOutputStream().write("ping".getBytes(StandardCharsets.US_ASCII));
        assertThat(new String(readExactly(s.getInputStream(), 4), StandardCharsets.US_ASCII)).isEqualTo("ping");
      }
      try (SSLSocket s = connect(client(false), edge.port(), "api.wild.test")) {
        // Passthrough: the handshake is the origin's, the edge only relays it.
        assertThat(peerName(s)).contains("CN=backend.test");
        s.getOutputStream().write("through".getBytes(StandardCharsets.US_ASCII));
        assertThat(new String(readExactly(s.getInputStream(), 7), StandardCharsets.US_ASCII)).isEqualTo("through");
      }
      try (SSLSocket s = connect(client(false), edge.port(), "nomatch.test")) {
        assertThatThrownBy(s::startHandshake).isInstanceOf(IOException.class);
      }
      String listener = "listener.127.0.0.1_0"; // stats name the configured address
      assertThat(edge.awaitStat(listener + ".no_filter_chain_match", 1)).isEqualTo(1);
      assertThat(edge.stat("tcp.terminated.downstream_cx_total")).isEqualTo(1);
      assertThat(edge.stat("tcp.passthrough.downstream_cx_total")).isEqualTo(1);
      assertThat(edge.stat("http.ingress.downstream_cx_total")).isEqualTo(1);
      assertThat(edge.stat("tls_inspector.sni_found")).isEqualTo(4);
    }
  }

  @Test
  void aRequiredClientCertificateIsVerified() throws Exception {
    int plainEcho = echo(null);
    String mtls = terminate("server", "require_client_certificate: true").replace("    common_tls_context:\n",
        "    common_tls_context:\n      validation_context: {trusted_ca: {filename: \"" + TestPem.certificate("client")
            + "\"}}\n") + tcpProxy("mtls", "echo", "");
    try (EdgeHarness edge = EdgeHarness.start(edge("", List.of(mtls), EdgeHarness.cluster("echo", "", plainEcho)))) {
      try (SSLSocket s = connect(client(false), edge.port(), "backend.test")) {
        // TLS 1.3: the client may finish its side first; the refusal then arrives on the first read.
        assertThatThrownBy(() -> {
          s.startHandshake();
          s.getOutputStream().write("no".getBytes(StandardCharsets.US_ASCII));
          s.getOutputStream().flush();
          if (s.getInputStream().read() == -1) {
            throw new IOException("closed");
          }
        }).isInstanceOf(IOException.class);
      }
      try (SSLSocket s = connect(client(true), edge.port(), "backend.test")) {
        s.getOutputStream().write("yes".getBytes(StandardCharsets.US_ASCII));
        assertThat(new String(readExactly(s.getInputStream(), 3), StandardCharsets.US_ASCII)).isEqualTo("yes");
      }
      String listener = "listener.127.0.0.1_0"; // stats name the configured address
      assertThat(edge.awaitStat(listener + ".ssl.handshake_error", 1)).isEqualTo(1);
      assertThat(edge.stat("tcp.mtls.downstream_cx_total")).isEqualTo(1);
    }
  }
}
