package io.spillway.edge.it;

import static io.spillway.edge.it.EdgeHarness.bootstrap;
import static io.spillway.edge.it.EdgeHarness.cluster;
import static org.assertj.core.api.Assertions.assertThat;

import io.netty.bootstrap.ServerBootstrap;
import io.netty.channel.Channel;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInitializer;
import io.netty.channel.EventLoopGroup;
import io.netty.channel.MultiThreadIoEventLoopGroup;
import io.netty.channel.SimpleChannelInboundHandler;
import io.netty.channel.nio.NioIoHandler;
import io.netty.channel.socket.nio.NioServerSocketChannel;
import io.netty.handler.codec.http.DefaultFullHttpResponse;
import io.netty.handler.codec.http.FullHttpRequest;
import io.netty.handler.codec.http.HttpObjectAggregator;
import io.netty.handler.codec.http.HttpResponseStatus;
import io.netty.handler.codec.http.HttpServerCodec;
import io.netty.handler.codec.http.HttpVersion;
import io.netty.handler.codec.http2.DefaultHttp2Headers;
import io.netty.handler.codec.http2.DefaultHttp2HeadersFrame;
import io.netty.handler.codec.http2.Http2FrameCodecBuilder;
import io.netty.handler.codec.http2.Http2HeadersFrame;
import io.netty.handler.ssl.ApplicationProtocolConfig;
import io.netty.handler.ssl.ApplicationProtocolNames;
import io.netty.handler.ssl.ClientAuth;
import io.netty.handler.ssl.SslContext;
import io.netty.handler.ssl.SslContextBuilder;
import io.netty.handler.ssl.SslHandler;
import io.spillway.edge.upstream.ClusterManager;
import io.spillway.testkit.TestPem;
import java.net.InetSocketAddress;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import javax.net.ssl.ExtendedSSLSession;
import javax.net.ssl.SNIHostName;
import javax.net.ssl.SNIServerName;
import javax.net.ssl.SSLContext;
import javax.net.ssl.SSLSession;
import javax.net.ssl.TrustManagerFactory;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A cluster's {@code transport_socket} TLS against a real TLS origin on 127.0.0.1 (Netty, with the
 * test certificates of {@link TestPem}): verification with {@code trusted_ca}, SAN matching, SNI,
 * mTLS, HTTP/2 over ALPN, and a listener whose certificate is inline.
 */
class UpstreamTlsIT {

  @TempDir
  Path dir;

  private final EventLoopGroup group = new MultiThreadIoEventLoopGroup(1, NioIoHandler.newFactory());
  /** What the origin saw of each handshake: the SNI (or "-") and the client certificate's subject (or "-"). */
  private final List<String> handshakes = new CopyOnWriteArrayList<>();

  @AfterEach
  void stop() {
    group.shutdownGracefully(0, 0, java.util.concurrent.TimeUnit.SECONDS).syncUninterruptibly();
  }

  /** A TLS origin answering 200 "tls-ok" over HTTP/1.1, or over h2 when ALPN selects it. */
  private int origin(boolean requireClientCertificate) throws Exception {
    SslContextBuilder b = SslContextBuilder.forServer(TestPem.certificate("server").toFile(),
            TestPem.key("server").toFile())
        .applicationProtocolConfig(new ApplicationProtocolConfig(ApplicationProtocolConfig.Protocol.ALPN,
            ApplicationProtocolConfig.SelectorFailureBehavior.NO_ADVERTISE,
            ApplicationProtocolConfig.SelectedListenerFailureBehavior.ACCEPT,
            ApplicationProtocolNames.HTTP_2, ApplicationProtocolNames.HTTP_1_1));
    if (requireClientCertificate) {
      b.clientAuth(ClientAuth.REQUIRE).trustManager(TestPem.certificate("client").toFile());
    }
    SslContext ssl = b.build();
    Channel server = new ServerBootstrap().group(group).channel(NioServerSocketChannel.class)
        .childHandler(new ChannelInitializer<Channel>() {
          @Override
          protected void initChannel(Channel ch) {
            SslHandler tls = ssl.newHandler(ch.alloc());
            ch.pipeline().addLast(tls, new io.netty.channel.ChannelInboundHandlerAdapter() {
              @Override
              public void exceptionCaught(ChannelHandlerContext ctx, Throwable cause) {
                ctx.close(); // refused handshakes are what several tests are about
              }
            });
            tls.handshakeFuture().addListener(done -> {
              if (!done.isSuccess()) {
                return;
              }
              SSLSession session = tls.engine().getSession();
              handshakes.add(sni(session) + " " + clientSubject(session));
              if (ApplicationProtocolNames.HTTP_2.equals(tls.applicationProtocol())) {
                ch.pipeline().addLast(Http2FrameCodecBuilder.forServer().build(), new Http2Origin());
              } else {
                ch.pipeline().addLast(new HttpServerCodec(), new HttpObjectAggregator(65536), new Http1Origin());
              }
            });
          }
        })
        .bind(new InetSocketAddress("127.0.0.1", 0)).sync().channel();
    return ((InetSocketAddress) server.localAddress()).getPort();
  }

  private static String sni(SSLSession session) {
    if (session instanceof ExtendedSSLSession extended) {
      for (SNIServerName name : extended.getRequestedServerNames()) {
        if (name instanceof SNIHostName host) {
          return host.getAsciiName();
        }
      }
    }
    return "-";
  }

  private static String clientSubject(SSLSession session) {
    try {
      return ((java.security.cert.X509Certificate) session.getPeerCertificates()[0]).getSubjectX500Principal()
          .getName();
    } catch (javax.net.ssl.SSLPeerUnverifiedException e) {
      return "-";
    }
  }

  private static final class Http1Origin extends SimpleChannelInboundHandler<FullHttpRequest> {
    @Override
    protected void channelRead0(ChannelHandlerContext ctx, FullHttpRequest request) {
      DefaultFullHttpResponse response = new DefaultFullHttpResponse(HttpVersion.HTTP_1_1, HttpResponseStatus.OK,
          ctx.alloc().buffer().writeBytes("tls-ok http/1.1".getBytes(StandardCharsets.UTF_8)));
      response.headers().set("content-length", response.content().readableBytes());
      ctx.writeAndFlush(response);
    }
  }

  private static final class Http2Origin extends SimpleChannelInboundHandler<Http2HeadersFrame> {
    @Override
    protected void channelRead0(ChannelHandlerContext ctx, Http2HeadersFrame request) {
      if (request.isEndStream()) {
        ctx.writeAndFlush(new DefaultHttp2HeadersFrame(new DefaultHttp2Headers().status("200")
            .set("x-origin", "tls-ok h2"), true).stream(request.stream()));
      }
    }
  }

  private String accessLog() {
    return """
        access_log:
        - name: envoy.access_loggers.file
          typed_config:
            "@type": type.googleapis.com/envoy.extensions.access_loggers.file.v3.FileAccessLog
            path: "%s"
            log_format: {text_format_source: {inline_string: "%%RESPONSE_CODE%% %%RESPONSE_FLAGS%%\\n"}}
        """.formatted(dir.resolve("access.log"));
  }

  private String yaml(String tls, String protocol, int port) {
    return bootstrap(accessLog(), """
        - match: { prefix: "/" }
          route: { cluster: origin }
        """, cluster("origin", """
        typed_extension_protocol_options:
          envoy.extensions.upstreams.http.v3.HttpProtocolOptions:
            "@type": type.googleapis.com/envoy.extensions.upstreams.http.v3.HttpProtocolOptions
            explicit_http_config: { %s: {} }
        transport_socket:
          name: envoy.transport_sockets.tls
          typed_config:
            "@type": type.googleapis.com/envoy.extensions.transport_sockets.tls.v3.UpstreamTlsContext
        %s
        """.formatted(protocol, EdgeHarness.indent(tls, 4)), port));
  }

  private static String trusting(String certificate) {
    return "common_tls_context: {validation_context: {trusted_ca: {filename: \"" + TestPem.certificate(certificate)
        + "\"}}}";
  }

  @Test
  void verifiesTheOriginWithTheTrustedCaAndSendsTheSni() throws Exception {
    int port = origin(false);
    try (EdgeHarness edge = EdgeHarness.start(yaml("sni: backend.test\n" + trusting("server"),
        "http_protocol_options", port))) {
      HttpResponse<String> response = edge.get("/");

      assertThat(response.statusCode()).isEqualTo(200);
      assertThat(response.body()).isEqualTo("tls-ok http/1.1");
      assertThat(handshakes).containsExactly("backend.test -");
      assertThat(edge.awaitStat("cluster.origin.ssl.handshake", 1)).isEqualTo(1);
      assertThat(edge.stat("cluster.origin.ssl.connection_error")).isZero();
    }
  }

  @Test
  void refusesAnOriginTheCaDoesNotVouchFor() throws Exception {
    int port = origin(false);
    try (EdgeHarness edge = EdgeHarness.start(yaml(trusting("other"), "http_protocol_options", port))) {
      HttpResponse<String> response = edge.get("/");

      assertThat(response.statusCode()).isEqualTo(503);
      // Envoy counts a refused chain as fail_verify_error and leaves it out of connection_error.
      assertThat(edge.awaitStat("cluster.origin.ssl.fail_verify_error", 1)).isEqualTo(1);
      assertThat(edge.stat("cluster.origin.ssl.connection_error")).isZero();
      assertThat(edge.stat("cluster.origin.upstream_cx_connect_fail")).isEqualTo(1);
      assertThat(edge.stat("cluster.origin.ssl.handshake")).isZero();
      assertThat(awaitLog()).isEqualTo("503 UF");
    }
  }

  @Test
  void withoutValidationContextAcceptsAnyCertificateAndSendsNoSni() throws Exception {
    int port = origin(false);
    try (EdgeHarness edge = EdgeHarness.start(yaml("common_tls_context: {}", "http_protocol_options", port))) {
      assertThat(edge.get("/").statusCode()).isEqualTo(200);
      assertThat(handshakes).containsExactly("- -");
    }
  }

  @Test
  void matchesSubjectAltNames() throws Exception {
    int port = origin(false);
    String matching = """
        common_tls_context:
          validation_context:
            trusted_ca: {filename: "%s"}
            match_typed_subject_alt_names:
            - {san_type: DNS, matcher: {exact: nothing.test}}
            - {san_type: URI, matcher: {prefix: "spiffe://test/"}}
        """.formatted(TestPem.certificate("server"));
    try (EdgeHarness edge = EdgeHarness.start(yaml(matching, "http_protocol_options", port))) {
      assertThat(edge.get("/").statusCode()).isEqualTo(200);
    }
    String wrong = matching.replace("prefix: \"spiffe://test/\"", "exact: \"spiffe://test/other\"");
    try (EdgeHarness edge = EdgeHarness.start(yaml(wrong, "http_protocol_options", port))) {
      assertThat(edge.get("/").statusCode()).isEqualTo(503);
      assertThat(edge.awaitStat("cluster.origin.ssl.fail_verify_san", 1)).isEqualTo(1);
      assertThat(edge.stat("cluster.origin.ssl.fail_verify_error")).isZero();
      assertThat(edge.stat("cluster.origin.ssl.connection_error")).isZero();
      assertThat(awaitLog(1)).as("after the first edge's 200").isEqualTo("503 UF");
    }
  }

  @Test
  void autoHostSniSendsTheEndpointsDnsName() throws Exception {
    int port = origin(false);
    String yaml = yaml("auto_host_sni: true\n" + trusting("server"), "http_protocol_options", port)
        .replace("type: STATIC", "type: STRICT_DNS")
        .replace("address: 127.0.0.1, port_value: " + port, "address: backend.test, port_value: " + port);
    ClusterManager.Resolver resolver = host -> {
      if (!host.equals("backend.test")) {
        throw new java.net.UnknownHostException(host);
      }
      return List.of(java.net.InetAddress.getByAddress(host, new byte[] {127, 0, 0, 1}));
    };
    try (EdgeHarness edge = EdgeHarness.start(yaml, resolver)) {
      assertThat(edge.get("/").statusCode()).isEqualTo(200);
      assertThat(handshakes).containsExactly("backend.test -");
    }
  }

  @Test
  void healthChecksGoOverTheClustersTls() throws Exception {
    int port = origin(false);
    String checks = """
            health_checks:
            - timeout: 0.5s
              interval: 0.1s
              no_traffic_interval: 0.1s
              unhealthy_threshold: 1
              healthy_threshold: 1
              http_health_check: { path: /healthz }
        """;
    String good = yaml(trusting("server"), "http_protocol_options", port)
        .replace("    transport_socket:\n", checks + "    transport_socket:\n");
    try (EdgeHarness edge = EdgeHarness.start(good)) {
      assertThat(awaitAtLeast(edge, "cluster.origin.health_check.success", 2)).isGreaterThanOrEqualTo(2);
      assertThat(handshakes).isNotEmpty().allMatch(h -> h.equals("- -"));
      assertThat(edge.get("/").statusCode()).isEqualTo(200);
    }
    String wrongCa = yaml(trusting("other"), "http_protocol_options", port)
        .replace("    transport_socket:\n", checks + "    transport_socket:\n");
    try (EdgeHarness edge = EdgeHarness.start(wrongCa)) {
      assertThat(awaitAtLeast(edge, "cluster.origin.health_check.failure", 2)).isGreaterThanOrEqualTo(2);
      assertThat(edge.stat("cluster.origin.health_check.success")).isZero();
    }
  }

  /** Waits (at most 10 s) for a counter to reach at least {@code min}; returns its value. */
  private static long awaitAtLeast(EdgeHarness edge, String stat, long min) throws InterruptedException {
    long deadline = System.nanoTime() + Duration.ofSeconds(10).toNanos();
    while (edge.stat(stat) < min && System.nanoTime() < deadline) {
      Thread.sleep(10);
    }
    return edge.stat(stat);
  }

  @Test
  void presentsTheClientCertificateWhenTheOriginRequiresOne() throws Exception {
    int port = origin(true);
    String mtls = """
        common_tls_context:
          tls_certificates:
          - certificate_chain: {filename: "%s"}
            private_key: {inline_string: %s}
          validation_context: {trusted_ca: {filename: "%s"}}
        """.formatted(TestPem.certificate("client"), TestPem.yamlString(TestPem.key("client")),
        TestPem.certificate("server"));
    try (EdgeHarness edge = EdgeHarness.start(yaml(mtls, "http_protocol_options", port))) {
      assertThat(edge.get("/").statusCode()).isEqualTo(200);
      assertThat(handshakes).containsExactly("- CN=edge-client");
    }
    try (EdgeHarness edge = EdgeHarness.start(yaml(trusting("server"), "http_protocol_options", port))) {
      assertThat(edge.get("/").statusCode()).as("no client certificate").isEqualTo(503);
      assertThat(edge.awaitStat("cluster.origin.ssl.connection_error", 1)).isEqualTo(1);
    }
  }

  @Test
  void speaksHttp2OverAlpn() throws Exception {
    int port = origin(false);
    try (EdgeHarness edge = EdgeHarness.start(yaml(trusting("server"), "http2_protocol_options", port))) {
      HttpResponse<String> response = edge.get("/");

      assertThat(response.statusCode()).isEqualTo(200);
      assertThat(response.headers().firstValue("x-origin")).contains("tls-ok h2");
      assertThat(edge.stat("cluster.origin.upstream_cx_http2_total")).isEqualTo(1);
    }
  }

  @Test
  void servesAListenerWhoseCertificateAndKeyAreInline() throws Exception {
    String listenerTls = """
        transport_socket:
          name: envoy.transport_sockets.tls
          typed_config:
            "@type": type.googleapis.com/envoy.extensions.transport_sockets.tls.v3.DownstreamTlsContext
            common_tls_context:
              tls_certificates:
              - certificate_chain: {inline_string: %s}
                private_key: {inline_string: %s}
        """.formatted(TestPem.yamlString(TestPem.certificate("server")), TestPem.yamlString(TestPem.key("server")));
    String yaml = bootstrap("", """
        - match: { prefix: "/" }
          direct_response: { status: 200, body: { inline_string: "inline-listener" } }
        """, cluster("unused", "", 9)).replace("    filter_chains:\n    - filters:",
        "    filter_chains:\n    - " + EdgeHarness.indent(listenerTls, 6).stripLeading() + "\n      filters:");
    try (EdgeHarness edge = EdgeHarness.start(yaml)) {
      HttpClient client = HttpClient.newBuilder().sslContext(trusting(TestPem.certificate("server")))
          .version(HttpClient.Version.HTTP_1_1).connectTimeout(Duration.ofSeconds(5)).build();
      HttpResponse<String> response = client.send(HttpRequest.newBuilder(
              java.net.URI.create("https://127.0.0.1:" + edge.port() + "/")).timeout(Duration.ofSeconds(20)).build(),
          HttpResponse.BodyHandlers.ofString());

      assertThat(response.statusCode()).isEqualTo(200);
      assertThat(response.body()).isEqualTo("inline-listener");
    }
  }

  private static SSLContext trusting(Path certificate) throws Exception {
    java.security.KeyStore trust = java.security.KeyStore.getInstance(java.security.KeyStore.getDefaultType());
    trust.load(null, null);
    try (var in = Files.newInputStream(certificate)) {
      trust.setCertificateEntry("edge", java.security.cert.CertificateFactory.getInstance("X.509")
          .generateCertificate(in));
    }
    TrustManagerFactory tmf = TrustManagerFactory.getInstance(TrustManagerFactory.getDefaultAlgorithm());
    tmf.init(trust);
    SSLContext context = SSLContext.getInstance("TLS");
    context.init(null, tmf.getTrustManagers(), null);
    return context;
  }

  /** The access log's first line, waiting (at most 10 s) for the flush. */
  private String awaitLog() throws Exception {
    return awaitLog(0);
  }

  /** The access log's line {@code index}, waiting (at most 10 s) for the flush. */
  private String awaitLog(int index) throws Exception {
    Path log = dir.resolve("access.log");
    long deadline = System.nanoTime() + Duration.ofSeconds(10).toNanos();
    while (System.nanoTime() < deadline) {
      if (Files.exists(log)) {
        List<String> lines = Files.readAllLines(log);
        if (lines.size() > index) {
          return lines.get(index);
        }
      }
      Thread.sleep(10);
    }
    return "";
  }
}
