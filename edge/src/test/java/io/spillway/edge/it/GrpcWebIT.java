package io.spillway.edge.it;

import static io.spillway.edge.it.EdgeHarness.bootstrap;
import static io.spillway.edge.it.EdgeHarness.cluster;
import static org.assertj.core.api.Assertions.assertThat;

import io.grpc.Metadata;
import io.grpc.MethodDescriptor;
import io.grpc.Server;
import io.grpc.ServerCall;
import io.grpc.ServerCallHandler;
import io.grpc.ServerServiceDefinition;
import io.grpc.Status;
import io.grpc.netty.shaded.io.grpc.netty.NettyServerBuilder;
import io.grpc.stub.ServerCalls;
import io.netty.handler.codec.http2.Http2FrameTypes;
import io.spillway.testkit.RawHttp2;
import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.io.UncheckedIOException;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Base64;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * A gRPC-Web client (written here, over a raw HTTP/1.1 socket as a browser's XHR would speak, and
 * over HTTP/2 with prior knowledge) calling a real grpc-java server through the edge's
 * {@code envoy.filters.http.grpc_web} filter: unary calls in binary and in text mode (a text body
 * sent in chunks that split base64 quanta), the status and message in the trailer frame, a
 * trailers-only error, the edge's own 503 and its 400 for a body that is not base64; over HTTP/2
 * the stream ends with DATA, not with an empty trailer block.
 */
class GrpcWebIT {

  private static final Duration WAIT = Duration.ofSeconds(10);

  private static final MethodDescriptor.Marshaller<String> TEXT = new MethodDescriptor.Marshaller<>() {
    @Override
    public InputStream stream(String value) {
      return new ByteArrayInputStream(value.getBytes(StandardCharsets.UTF_8));
    }

    @Override
    public String parse(InputStream stream) {
      try {
        return new String(stream.readAllBytes(), StandardCharsets.UTF_8);
      } catch (IOException e) {
        throw new UncheckedIOException(e);
      }
    }
  };

  private static MethodDescriptor<String, String> unary(String name) {
    return MethodDescriptor.<String, String>newBuilder().setType(MethodDescriptor.MethodType.UNARY)
        .setFullMethodName("spillway.test.Echo/" + name).setRequestMarshaller(TEXT).setResponseMarshaller(TEXT)
        .build();
  }

  private static final MethodDescriptor<String, String> SAY = unary("Say");
  private static final MethodDescriptor<String, String> MISSING = unary("Missing");

  private static Server server;
  private static EdgeHarness edge;
  /** The head of the last request the server saw. */
  private static final AtomicReference<Metadata> seen = new AtomicReference<>();

  @BeforeAll
  static void start() throws Exception {
    ServerServiceDefinition echo = ServerServiceDefinition.builder("spillway.test.Echo")
        .addMethod(SAY, ServerCalls.asyncUnaryCall((request, observer) -> {
          if (request.equals("fail")) {
            observer.onError(Status.PERMISSION_DENIED.withDescription("not you").asRuntimeException());
            return;
          }
          observer.onNext("echo:" + request);
          observer.onCompleted();
        }))
        // Headers first, then a failing status: the status travels in the trailers.
        .addMethod(MISSING, new ServerCallHandler<String, String>() {
          @Override
          public ServerCall.Listener<String> startCall(ServerCall<String, String> call, Metadata headers) {
            call.request(1);
            return new ServerCall.Listener<>() {
              @Override
              public void onHalfClose() {
                call.sendHeaders(new Metadata());
                Metadata trailers = new Metadata();
                trailers.put(Metadata.Key.of("x-detail", Metadata.ASCII_STRING_MARSHALLER), "shelf 3");
                call.close(Status.NOT_FOUND.withDescription("no such thing"), trailers);
              }
            };
          }
        })
        .build();
    server = NettyServerBuilder.forAddress(new InetSocketAddress("127.0.0.1", 0)).addService(echo)
        .intercept(new io.grpc.ServerInterceptor() {
          @Override
          public <Q, S> ServerCall.Listener<Q> interceptCall(ServerCall<Q, S> call, Metadata headers,
              ServerCallHandler<Q, S> next) {
            seen.set(headers);
            return next.startCall(call, headers);
          }
        })
        .build().start();
    String yaml = EdgeHarness.withHttpFilterBeforeRouter(bootstrap("""
        - match: { prefix: "/spillway.test.Down/" }
          route: { cluster: down }
        - match: { prefix: "/" }
          route: { cluster: grpc }
        """, cluster("grpc", """
        typed_extension_protocol_options:
          envoy.extensions.upstreams.http.v3.HttpProtocolOptions:
            "@type": type.googleapis.com/envoy.extensions.upstreams.http.v3.HttpProtocolOptions
            explicit_http_config:
              http2_protocol_options: {}
        """, server.getPort()) + "\n" + cluster("down", "")), """
        - name: envoy.filters.http.grpc_web
          typed_config:
            "@type": type.googleapis.com/envoy.extensions.filters.http.grpc_web.v3.GrpcWeb
        """);
    edge = EdgeHarness.start(yaml);
  }

  @AfterAll
  static void stop() throws Exception {
    if (edge != null) {
      edge.close();
    }
    if (server != null) {
      server.shutdownNow().awaitTermination(5, TimeUnit.SECONDS);
    }
  }

  // ---- the gRPC-Web client -------------------------------------------------------------------

  /** A length-prefixed message frame (flag 0). */
  private static byte[] frame(String message) {
    byte[] m = message.getBytes(StandardCharsets.UTF_8);
    byte[] f = new byte[5 + m.length];
    f[1] = (byte) (m.length >>> 24);
    f[2] = (byte) (m.length >>> 16);
    f[3] = (byte) (m.length >>> 8);
    f[4] = (byte) m.length;
    System.arraycopy(m, 0, f, 5, m.length);
    return f;
  }

  /** One frame of a gRPC-Web response body. */
  record WebFrame(int flag, byte[] payload) {
    String text() {
      return new String(payload, StandardCharsets.ISO_8859_1);
    }

    /** A trailer frame's fields, in order. */
    Map<String, String> trailers() {
      Map<String, String> fields = new LinkedHashMap<>();
      for (String line : text().split("\r\n")) {
        int colon = line.indexOf(':');
        fields.put(line.substring(0, colon), line.substring(colon + 1));
      }
      return fields;
    }
  }

  private static List<WebFrame> frames(byte[] body) {
    List<WebFrame> frames = new ArrayList<>();
    int at = 0;
    while (at < body.length) {
      assertThat(body.length - at).as("a whole frame prefix").isGreaterThanOrEqualTo(5);
      int length = (body[at + 1] & 0xff) << 24 | (body[at + 2] & 0xff) << 16 | (body[at + 3] & 0xff) << 8
          | body[at + 4] & 0xff;
      assertThat(at + 5 + length).as("a whole frame").isLessThanOrEqualTo(body.length);
      frames.add(new WebFrame(body[at] & 0xff, java.util.Arrays.copyOfRange(body, at + 5, at + 5 + length)));
      at += 5 + length;
    }
    return frames;
  }

  /**
   * A text body's bytes: padded base64 segments one after another, decoded quantum by quantum as a
   * gRPC-Web client does (a standard decoder refuses padding inside its input).
   */
  private static byte[] decodeText(String text) {
    assertThat(text.length() % 4).as("whole quanta: " + text).isZero();
    ByteArrayOutputStream out = new ByteArrayOutputStream();
    for (int i = 0; i < text.length(); i += 4) {
      out.writeBytes(Base64.getDecoder().decode(text.substring(i, i + 4)));
    }
    return out.toByteArray();
  }

  /** An HTTP/1.1 response as the raw client read it. */
  record Http1Response(int status, Map<String, String> headers, byte[] body) {
    String header(String name) {
      return headers.get(name.toLowerCase(Locale.ROOT));
    }
  }

  /**
   * POSTs over a fresh HTTP/1.1 connection; the body goes as one Content-Length body, or chunked
   * in parts of {@code chunk} bytes when {@code chunk > 0}. Reads the response to its end.
   */
  private static Http1Response post(String path, byte[] body, int chunk, String... headerLines) throws IOException {
    try (Socket socket = new Socket("127.0.0.1", edge.port())) {
      socket.setSoTimeout((int) WAIT.toMillis());
      StringBuilder head = new StringBuilder("POST " + path + " HTTP/1.1\r\nHost: web.example\r\n"
          + "Connection: close\r\nX-Grpc-Web: 1\r\nX-User-Agent: grpc-web-javascript/0.1\r\n");
      for (String line : headerLines) {
        head.append(line).append("\r\n");
      }
      head.append(chunk > 0 ? "Transfer-Encoding: chunked\r\n" : "Content-Length: " + body.length + "\r\n");
      head.append("\r\n");
      OutputStream out = socket.getOutputStream();
      out.write(head.toString().getBytes(StandardCharsets.US_ASCII));
      if (chunk > 0) {
        for (int at = 0; at < body.length; at += chunk) {
          int n = Math.min(chunk, body.length - at);
          out.write((Integer.toHexString(n) + "\r\n").getBytes(StandardCharsets.US_ASCII));
          out.write(body, at, n);
          out.write("\r\n".getBytes(StandardCharsets.US_ASCII));
          out.flush();
        }
        out.write("0\r\n\r\n".getBytes(StandardCharsets.US_ASCII));
      } else {
        out.write(body);
      }
      out.flush();
      return read(socket.getInputStream());
    }
  }

  private static Http1Response read(InputStream in) throws IOException {
    String statusLine = line(in);
    int status = Integer.parseInt(statusLine.split(" ")[1]);
    Map<String, String> headers = new LinkedHashMap<>();
    for (String l = line(in); !l.isEmpty(); l = line(in)) {
      int colon = l.indexOf(':');
      headers.put(l.substring(0, colon).trim().toLowerCase(Locale.ROOT), l.substring(colon + 1).trim());
    }
    ByteArrayOutputStream body = new ByteArrayOutputStream();
    if ("chunked".equalsIgnoreCase(headers.get("transfer-encoding"))) {
      for (int n = Integer.parseInt(line(in).split(";")[0].trim(), 16); n > 0;
          n = Integer.parseInt(line(in).split(";")[0].trim(), 16)) {
        body.writeBytes(in.readNBytes(n));
        assertThat(line(in)).isEmpty();
      }
      for (String l = line(in); !l.isEmpty(); l = line(in)) {
        headers.put("trailer:" + l.substring(0, l.indexOf(':')).toLowerCase(Locale.ROOT),
            l.substring(l.indexOf(':') + 1).trim());
      }
    } else if (headers.containsKey("content-length")) {
      body.writeBytes(in.readNBytes(Integer.parseInt(headers.get("content-length"))));
    }
    return new Http1Response(status, headers, body.toByteArray());
  }

  private static String line(InputStream in) throws IOException {
    ByteArrayOutputStream line = new ByteArrayOutputStream();
    for (int b = in.read(); b != '\n'; b = in.read()) {
      if (b < 0) {
        throw new IOException("connection closed mid-line: " + line);
      }
      if (b != '\r') {
        line.write(b);
      }
    }
    return line.toString(StandardCharsets.ISO_8859_1);
  }

  // ---- the calls -----------------------------------------------------------------------------

  @Test
  void aBinaryUnaryCallOverHttp1() throws Exception {
    Http1Response r = post("/spillway.test.Echo/Say", frame("hello"), 0,
        "Content-Type: application/grpc-web+proto", "Accept: application/grpc-web+proto");
    assertThat(r.status()).isEqualTo(200);
    assertThat(r.header("content-type")).isEqualTo("application/grpc-web+proto");
    assertThat(r.header("transfer-encoding")).as("the body's length is not known up front").isEqualTo("chunked");
    List<WebFrame> frames = frames(r.body());
    assertThat(frames).hasSize(2);
    assertThat(frames.get(0).flag()).isZero();
    assertThat(frames.get(0).text()).isEqualTo("echo:hello");
    assertThat(frames.get(1).flag()).as("the trailer frame").isEqualTo(0x80);
    assertThat(frames.get(1).trailers()).containsEntry("grpc-status", "0");
    assertThat(r.headers().keySet()).as("no HTTP trailers left").noneMatch(k -> k.startsWith("trailer:"));

    Metadata upstream = seen.get();
    assertThat(upstream.get(Metadata.Key.of("content-type", Metadata.ASCII_STRING_MARSHALLER)))
        .isEqualTo("application/grpc");
    assertThat(upstream.get(Metadata.Key.of("x-grpc-web", Metadata.ASCII_STRING_MARSHALLER))).isEqualTo("1");
    assertThat(upstream.get(Metadata.Key.of("grpc-accept-encoding", Metadata.ASCII_STRING_MARSHALLER)))
        .isEqualTo("identity,deflate,gzip");
  }

  @Test
  void aTextUnaryCallWhoseBodyArrivesInChunksThatSplitBase64Quanta() throws Exception {
    byte[] text = Base64.getEncoder().encode(frame("hello in text, split oddly"));
    Http1Response r = post("/spillway.test.Echo/Say", text, 5,
        "Content-Type: application/grpc-web-text", "Accept: application/grpc-web-text");
    assertThat(r.status()).isEqualTo(200);
    assertThat(r.header("content-type")).isEqualTo("application/grpc-web-text+proto");
    String body = new String(r.body(), StandardCharsets.US_ASCII);
    assertThat(body).matches("[A-Za-z0-9+/=]+");
    List<WebFrame> frames = frames(decodeText(body));
    assertThat(frames).hasSize(2);
    assertThat(frames.get(0).text()).isEqualTo("echo:hello in text, split oddly");
    assertThat(frames.get(1).flag()).isEqualTo(0x80);
    assertThat(frames.get(1).trailers()).containsEntry("grpc-status", "0");
    // Each frame is its own padded segment: the message frame's base64 is a prefix of the body.
    byte[] messageFrame = frame("echo:hello in text, split oddly");
    assertThat(body).startsWith(Base64.getEncoder().encodeToString(messageFrame));
  }

  @Test
  void anErrorStatusAndMessageArriveInTheTrailerFrame() throws Exception {
    Http1Response r = post("/spillway.test.Echo/Missing", frame("where"), 0,
        "Content-Type: application/grpc-web", "Accept: application/grpc-web");
    assertThat(r.status()).isEqualTo(200);
    List<WebFrame> frames = frames(r.body());
    assertThat(frames).hasSize(1);
    assertThat(frames.get(0).flag()).isEqualTo(0x80);
    Map<String, String> trailers = frames.get(0).trailers();
    assertThat(trailers).containsEntry("grpc-status", "5").containsEntry("grpc-message", "no such thing")
        .containsEntry("x-detail", "shelf 3");
    assertThat(trailers.keySet()).allMatch(k -> k.equals(k.toLowerCase(Locale.ROOT)));
  }

  @Test
  void aTrailersOnlyErrorKeepsItsStatusInTheHeaders() throws Exception {
    Http1Response r = post("/spillway.test.Echo/Say", Base64.getEncoder().encode(frame("fail")), 0,
        "Content-Type: application/grpc-web-text", "Accept: application/grpc-web-text");
    assertThat(r.status()).isEqualTo(200);
    assertThat(r.header("grpc-status")).isEqualTo("7");
    assertThat(r.header("grpc-message")).isEqualTo("not you");
    assertThat(r.header("content-type")).isEqualTo("application/grpc-web-text+proto");
    assertThat(r.body()).isEmpty();
  }

  @Test
  void theEdgesOwnReplyBecomesAGrpcStatus() throws Exception {
    Http1Response r = post("/spillway.test.Down/Call", frame("anyone?"), 0,
        "Content-Type: application/grpc-web+proto");
    assertThat(r.status()).isEqualTo(503);
    assertThat(r.header("grpc-status")).as("UNAVAILABLE").isEqualTo("14");
    assertThat(r.header("grpc-message")).isEqualTo("no healthy upstream");
    assertThat(r.header("content-type")).isEqualTo("application/grpc-web+proto");
    assertThat(r.body()).isEmpty();
  }

  @Test
  void aTextBodyThatIsNotBase64GetsA400() throws Exception {
    Http1Response r = post("/spillway.test.Echo/Say", "AAAA*AAA".getBytes(StandardCharsets.US_ASCII), 0,
        "Content-Type: application/grpc-web-text");
    assertThat(r.status()).isEqualTo(400);
    assertThat(r.header("grpc-status")).as("INTERNAL, mapped from 400").isEqualTo("13");
    assertThat(r.header("grpc-message")).isEqualTo("Bad gRPC-web request, invalid base64 data.");
  }

  @Test
  void aBinaryUnaryCallOverHttp2EndsWithDataNotWithAnEmptyTrailerBlock() {
    try (RawHttp2 h2 = RawHttp2.connect(edge.port())) {
      h2.preface();
      h2.awaitServerSettings(WAIT);
      h2.headers(1, RawHttp2.request("POST", "/spillway.test.Echo/Say", "content-type", "application/grpc-web+proto",
          "x-grpc-web", "1"), false);
      h2.data(1, frame("over h2"), true);
      ByteArrayOutputStream body = new ByteArrayOutputStream();
      RawHttp2.Frame last = null;
      boolean sawResponseHeaders = false;
      while (last == null || (last.flags() & RawHttp2.END_STREAM) == 0) {
        last = h2.awaitFrame(f -> f.streamId() == 1, WAIT)
            .orElseThrow(() -> new AssertionError("the stream did not end"));
        if (last.type() == Http2FrameTypes.HEADERS) {
          assertThat(sawResponseHeaders).as("one HEADERS frame: no trailer block").isFalse();
          sawResponseHeaders = true;
          assertThat(last.headers().status().toString()).isEqualTo("200");
          assertThat(last.headers().get("content-type").toString()).isEqualTo("application/grpc-web+proto");
        } else if (last.type() == Http2FrameTypes.DATA) {
          body.writeBytes(last.payload());
        }
      }
      // The trailers went into the body: the stream ends with DATA (Netty may merge the empty
      // end-of-stream DATA frame into the one before it), not with a HEADERS frame without fields.
      assertThat(last.type()).as("the stream ends with DATA").isEqualTo(Http2FrameTypes.DATA);
      List<WebFrame> frames = frames(body.toByteArray());
      assertThat(frames.get(0).text()).isEqualTo("echo:over h2");
      assertThat(frames.get(1).trailers()).containsEntry("grpc-status", "0");
    }
  }
}
