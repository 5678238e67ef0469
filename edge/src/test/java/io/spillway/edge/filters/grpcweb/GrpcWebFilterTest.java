package io.spillway.edge.filters.grpcweb;

import static io.spillway.edge.filters.grpcweb.BridgeStream.post;
import static io.spillway.edge.filters.grpcweb.GrpcWebTextEncoderTest.frame;
import static org.assertj.core.api.Assertions.assertThat;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import io.netty.handler.codec.http.DefaultHttpHeadersFactory;
import io.netty.handler.codec.http.HttpHeaders;
import io.spillway.edge.http.filter.FilterDataStatus;
import io.spillway.edge.http.filter.FilterHeadersStatus;
import io.spillway.edge.http.filter.FilterTrailersStatus;
import io.spillway.edge.http.message.RequestHeaders;
import io.spillway.edge.http.message.ResponseHeaders;
import java.io.ByteArrayOutputStream;
import java.nio.charset.StandardCharsets;
import java.util.Base64;
import org.junit.jupiter.api.Test;

/**
 * The gRPC-Web filter through fake stream callbacks: which requests it bridges, the request's
 * upstream head, text bodies decoded part by part and refused when not base64, the response's
 * content type, the trailer frame in binary and text, trailers-only responses, and non-gRPC
 * responses turned into a grpc-status and grpc-message.
 */
class GrpcWebFilterTest {

  private static final byte[] MESSAGE = frame("grpc-web-text-data".getBytes(StandardCharsets.US_ASCII));

  private BridgeStream stream;
  private GrpcWebFilter filter;

  /** A filter that has seen a request with these fields. */
  private RequestHeaders start(String... nameValues) {
    RequestHeaders request = post("/spillway.test.Echo/Say", nameValues);
    stream = new BridgeStream(request);
    filter = new GrpcWebFilter();
    filter.setDecoderFilterCallbacks(stream);
    filter.setEncoderFilterCallbacks(stream);
    assertThat(filter.decodeHeaders(request, false)).isEqualTo(FilterHeadersStatus.CONTINUE);
    return request;
  }

  private static ByteBuf ascii(String s) {
    return Unpooled.copiedBuffer(s, StandardCharsets.ISO_8859_1);
  }

  private static HttpHeaders fields(String... nameValues) {
    HttpHeaders h = DefaultHttpHeadersFactory.headersFactory().newHeaders();
    for (int i = 0; i < nameValues.length; i += 2) {
      h.add(nameValues[i], nameValues[i + 1]);
    }
    return h;
  }

  private static ResponseHeaders response(int status, String... nameValues) {
    return new ResponseHeaders(status, fields(nameValues));
  }

  /** The trailer frame Envoy's filter tests expect for grpc-status 0 and grpc-message ok. */
  private static final byte[] TRAILER_FRAME =
      "\u0080\0\0\0\u0020grpc-status:0\r\ngrpc-message:ok\r\n".getBytes(StandardCharsets.ISO_8859_1);

  // ---- which requests ------------------------------------------------------------------------

  @Test
  void bridgesEachOfTheFourContentTypesAndGivesTheUpstreamAGrpcHead() {
    for (String type : new String[] {"application/grpc-web", "application/grpc-web+proto",
        "application/grpc-web-text", "application/grpc-web-text+proto"}) {
      RequestHeaders request = start("content-type", type, "content-length", "23", "x-grpc-web", "1",
          "x-user-agent", "grpc-web-javascript/0.1");
      HttpHeaders h = request.headers();
      assertThat(h.get("content-type")).as(type).isEqualTo("application/grpc");
      assertThat(h.contains("content-length")).isFalse();
      assertThat(h.get("te")).isEqualTo("trailers");
      assertThat(h.get("grpc-accept-encoding")).isEqualTo("identity,deflate,gzip");
      assertThat(h.get("x-grpc-web")).as("passed on as Envoy does").isEqualTo("1");
      assertThat(h.get("x-user-agent")).isEqualTo("grpc-web-javascript/0.1");
    }
  }

  @Test
  void keepsTheClientsGrpcAcceptEncoding() {
    RequestHeaders request = start("content-type", "application/grpc-web", "grpc-accept-encoding", "gzip");
    assertThat(request.headers().get("grpc-accept-encoding")).isEqualTo("gzip");
  }

  @Test
  void leavesOtherRequestsAndTheirResponsesAlone() {
    for (String type : new String[] {"application/grpc", "application/json", "application/grpc-web+json",
        "application/grpc-web; charset=utf-8", "Application/grpc-web", "application/grpc-web-textx"}) {
      RequestHeaders request = start("content-type", type, "content-length", "4");
      assertThat(request.headers().get("content-type")).isEqualTo(type);
      assertThat(request.headers().get("content-length")).isEqualTo("4");
      assertThat(request.headers().contains("te")).isFalse();
      ByteBuf body = ascii("****");
      assertThat(filter.decodeData(body, true)).isEqualTo(FilterDataStatus.CONTINUE);
      body.release();
      ResponseHeaders response = response(503, "content-type", "text/plain", "content-length", "5");
      assertThat(filter.encodeHeaders(response, false)).isEqualTo(FilterHeadersStatus.CONTINUE);
      assertThat(response.headers().get("content-type")).isEqualTo("text/plain");
      assertThat(response.headers().get("content-length")).isEqualTo("5");
      HttpHeaders trailers = fields("grpc-status", "0");
      assertThat(filter.encodeTrailers(trailers)).isEqualTo(FilterTrailersStatus.CONTINUE);
      assertThat(trailers.get("grpc-status")).isEqualTo("0");
      assertThat(stream.injectedResponse).isEmpty();
    }
    assertThat(GrpcWebFilter.isGrpcWebRequest(null, "application/grpc-web")).as("no path").isFalse();
  }

  // ---- request bodies ------------------------------------------------------------------------

  @Test
  void aBinaryRequestBodyPassesUnchanged() {
    start("content-type", "application/grpc-web+proto");
    ByteBuf body = Unpooled.wrappedBuffer(MESSAGE);
    assertThat(filter.decodeData(body, true)).isEqualTo(FilterDataStatus.CONTINUE);
    assertThat(body.refCnt()).as("still the chain's").isEqualTo(1);
    body.release();
    assertThat(stream.injectedRequest).isEmpty();
  }

  @Test
  void aTextRequestBodyIsDecodedPartByPart() {
    start("content-type", "application/grpc-web-text");
    String text = Base64.getEncoder().encodeToString(MESSAGE);
    ByteArrayOutputStream decoded = new ByteArrayOutputStream();
    for (int i = 0; i < text.length(); i++) {
      ByteBuf part = ascii(text.substring(i, i + 1));
      boolean last = i == text.length() - 1;
      assertThat(filter.decodeData(part, last)).isEqualTo(FilterDataStatus.STOP_ITERATION_NO_BUFFER);
      assertThat(part.refCnt()).as("the filter took and released the part").isZero();
      assertThat(stream.injectedRequest).as("a part after character %d", i)
          .hasSize(i % 4 == 3 || last ? 1 : 0);
      decoded.writeBytes(stream.takeRequest());
    }
    assertThat(decoded.toByteArray()).isEqualTo(MESSAGE);
    assertThat(stream.replies).isZero();
  }

  @Test
  void theLastPartPassesEvenWhenItDecodesToNothing() {
    start("content-type", "application/grpc-web-text+proto");
    filter.decodeData(ascii(Base64.getEncoder().encodeToString(MESSAGE)), false);
    assertThat(stream.takeRequest()).isEqualTo(MESSAGE);
    assertThat(filter.decodeData(Unpooled.buffer(0), true)).isEqualTo(FilterDataStatus.STOP_ITERATION_NO_BUFFER);
    assertThat(stream.injectedRequest).as("an empty part carries the end of the body").hasSize(1);
    assertThat(stream.takeRequest()).isEmpty();
  }

  @Test
  void aTextBodyThatIsNotBase64GetsEnvoysBadRequest() {
    start("content-type", "application/grpc-web-text");
    ByteBuf body = ascii("****");
    assertThat(filter.decodeData(body, true)).isEqualTo(FilterDataStatus.STOP_ITERATION_NO_BUFFER);
    assertThat(body.refCnt()).isZero();
    assertThat(stream.replyStatus).isEqualTo(400);
    assertThat(stream.replyBody).isEqualTo("Bad gRPC-web request, invalid base64 data.");
    assertThat(stream.info.responseCodeDetails()).isEqualTo("grpc_base_64_decode_failed");
    assertThat(stream.injectedRequest).isEmpty();
  }

  @Test
  void aTextBodyEndingInsideAQuantumGetsEnvoysBadRequestForItsSize() {
    start("content-type", "application/grpc-web-text");
    // Envoy's own case: the message without its padding.
    ByteBuf body = ascii("AAAAABJncnBjLXdlYi10ZXh0LWRhdGE");
    assertThat(filter.decodeData(body, true)).isEqualTo(FilterDataStatus.STOP_ITERATION_NO_BUFFER);
    assertThat(stream.replyStatus).isEqualTo(400);
    assertThat(stream.info.responseCodeDetails()).isEqualTo("grpc_base_64_decode_failed_bad_size");
    assertThat(stream.injectedRequest).isEmpty();
  }

  @Test
  void trailersAfterAnUnfinishedQuantumAreABadRequestToo() {
    start("content-type", "application/grpc-web-text");
    filter.decodeData(ascii("AAAAAB"), false);
    stream.takeRequest();
    assertThat(filter.decodeTrailers(fields("x", "y"))).isEqualTo(FilterTrailersStatus.STOP_ITERATION);
    assertThat(stream.replyStatus).isEqualTo(400);
    assertThat(stream.info.responseCodeDetails()).isEqualTo("grpc_base_64_decode_failed_bad_size");
  }

  // ---- gRPC responses ------------------------------------------------------------------------

  @Test
  void aBinaryResponseGetsItsTrailersAsTheLastFrame() {
    start("content-type", "application/grpc-web", "accept", "application/grpc-web");
    ResponseHeaders response = response(200, "content-type", "application/grpc", "content-length", "23");
    assertThat(filter.encodeHeaders(response, false)).isEqualTo(FilterHeadersStatus.CONTINUE);
    assertThat(response.headers().get("content-type")).isEqualTo("application/grpc-web+proto");
    assertThat(response.headers().contains("content-length")).isFalse();
    assertThat(response.status()).isEqualTo(200);
    ByteBuf body = Unpooled.wrappedBuffer(MESSAGE);
    assertThat(filter.encodeData(body, false)).isEqualTo(FilterDataStatus.CONTINUE);
    body.release();
    HttpHeaders trailers = fields("grpc-status", "0", "grpc-message", "ok");
    assertThat(filter.encodeTrailers(trailers)).isEqualTo(FilterTrailersStatus.CONTINUE);
    assertThat(stream.takeResponse()).isEqualTo(TRAILER_FRAME);
    assertThat(trailers.isEmpty()).as("the trailers went into the body").isTrue();
  }

  @Test
  void trailerNamesAreLowerCasedAndKeepTheirOrder() {
    start("content-type", "application/grpc-web");
    filter.encodeHeaders(response(200, "content-type", "application/grpc+proto"), false);
    filter.encodeTrailers(fields("Grpc-Status", "7", "X-Custom-Bin", "AAE", "grpc-message", "not%20you"));
    assertThat(new String(stream.takeResponse(), StandardCharsets.ISO_8859_1))
        .isEqualTo("\u0080\0\0\0\u0039grpc-status:7\r\nx-custom-bin:AAE\r\ngrpc-message:not%20you\r\n");
  }

  @Test
  void aTextResponseIsBase64FrameByFrameAndSoIsItsTrailerFrame() {
    start("content-type", "application/grpc-web-text", "accept", "application/grpc-web-text");
    ResponseHeaders response = response(200, "content-type", "application/grpc");
    assertThat(filter.encodeHeaders(response, false)).isEqualTo(FilterHeadersStatus.CONTINUE);
    assertThat(response.headers().get("content-type")).isEqualTo("application/grpc-web-text+proto");
    StringBuilder text = new StringBuilder();
    for (int i = 0; i < MESSAGE.length; i++) {
      ByteBuf part = Unpooled.wrappedBuffer(MESSAGE, i, 1);
      assertThat(filter.encodeData(part, false)).isEqualTo(FilterDataStatus.STOP_ITERATION_NO_BUFFER);
      assertThat(part.refCnt()).isZero();
      text.append(new String(stream.takeResponse(), StandardCharsets.US_ASCII));
    }
    assertThat(text.toString()).isEqualTo("AAAAABJncnBjLXdlYi10ZXh0LWRhdGE=");
    HttpHeaders trailers = fields("grpc-status", "0", "grpc-message", "ok");
    filter.encodeTrailers(trailers);
    String trailerText = new String(stream.takeResponse(), StandardCharsets.US_ASCII);
    assertThat(Base64.getDecoder().decode(trailerText)).isEqualTo(TRAILER_FRAME);
    assertThat(trailers.isEmpty()).isTrue();
  }

  @Test
  void theAcceptHeaderAloneChoosesTextResponses() {
    start("content-type", "application/grpc-web-text");
    ResponseHeaders binary = response(200, "content-type", "application/grpc");
    filter.encodeHeaders(binary, false);
    assertThat(binary.headers().get("content-type")).as("a text request without accept").isEqualTo(
        "application/grpc-web+proto");
    start("content-type", "application/grpc-web", "accept", "application/grpc-web-text+proto");
    ResponseHeaders text = response(200, "content-type", "application/grpc");
    filter.encodeHeaders(text, false);
    assertThat(text.headers().get("content-type")).isEqualTo("application/grpc-web-text+proto");
  }

  @Test
  void aTrailersOnlyResponseKeepsItsStatusInTheHeaders() {
    start("content-type", "application/grpc-web-text", "accept", "application/grpc-web-text");
    ResponseHeaders response = response(200, "content-type", "application/grpc", "grpc-status", "7",
        "grpc-message", "not%20you");
    assertThat(filter.encodeHeaders(response, true)).isEqualTo(FilterHeadersStatus.CONTINUE);
    assertThat(response.headers().get("grpc-status")).isEqualTo("7");
    assertThat(response.headers().get("grpc-message")).isEqualTo("not%20you");
    assertThat(response.headers().get("content-type")).isEqualTo("application/grpc-web-text+proto");
    assertThat(stream.continuedEncoding).isZero();
    assertThat(stream.injectedResponse).isEmpty();
  }

  @Test
  void aGrpcWebResponseFromUpstreamIsNotTransformed() {
    for (String type : new String[] {"application/grpc-web", "application/grpc-web+proto",
        "APPLICATION/GRPC-WEB+PROTO; ok=1", "application/grpc-web    ; version=1"}) {
      start("content-type", "application/grpc-web");
      ResponseHeaders response = response(200, "content-type", type);
      assertThat(filter.encodeHeaders(response, false)).as(type).isEqualTo(FilterHeadersStatus.CONTINUE);
    }
  }

  // ---- other responses -----------------------------------------------------------------------

  @Test
  void anErrorPageBecomesAGrpcStatusAndMessage() {
    start("content-type", "application/grpc-web-text", "accept", "application/grpc-web-text");
    ResponseHeaders response = response(503, "content-type", "text/plain", "content-length", "30");
    assertThat(filter.encodeHeaders(response, false)).isEqualTo(FilterHeadersStatus.STOP_ITERATION);
    ByteBuf first = ascii("no healthy ");
    assertThat(filter.encodeData(first, false)).isEqualTo(FilterDataStatus.STOP_ITERATION_NO_BUFFER);
    assertThat(first.refCnt()).isZero();
    assertThat(stream.continuedEncoding).isZero();
    assertThat(filter.encodeData(ascii("upstream 100%\n"), true)).isEqualTo(FilterDataStatus.STOP_ITERATION_NO_BUFFER);
    assertThat(stream.continuedEncoding).isEqualTo(1);
    HttpHeaders h = response.headers();
    assertThat(response.status()).as("the status stays, as in Envoy").isEqualTo(503);
    assertThat(h.get("grpc-status")).isEqualTo("14");
    assertThat(h.get("grpc-message")).isEqualTo("no healthy upstream 100%25%0A");
    assertThat(h.get("content-length")).isEqualTo("0");
    assertThat(h.get("content-type")).isEqualTo("application/grpc-web-text+proto");
    assertThat(stream.injectedResponse).as("no body follows").isEmpty();
  }

  @Test
  void onlyTheFirst16KiBOfAnErrorPageBecomeTheMessage() {
    start("content-type", "application/grpc-web");
    ResponseHeaders response = response(500, "content-type", "text/html");
    filter.encodeHeaders(response, false);
    for (int i = 0; i < 5; i++) {
      filter.encodeData(ascii("a".repeat(5000)), false);
    }
    filter.encodeData(ascii("b"), true);
    assertThat(response.headers().get("grpc-message")).isEqualTo("a".repeat(16384));
    assertThat(response.headers().get("grpc-status")).isEqualTo("2");
  }

  @Test
  void aNonGrpcResponseWithTrailersTakesItsStatusWhenTheTrailersCome() {
    start("content-type", "application/grpc-web");
    ResponseHeaders response = response(200, "content-type", "application/json");
    assertThat(filter.encodeHeaders(response, false)).isEqualTo(FilterHeadersStatus.STOP_ITERATION);
    filter.encodeData(ascii("{}"), false);
    HttpHeaders trailers = fields("x-trailer", "1");
    assertThat(filter.encodeTrailers(trailers)).isEqualTo(FilterTrailersStatus.CONTINUE);
    assertThat(stream.continuedEncoding).isEqualTo(1);
    assertThat(response.headers().get("grpc-message")).isEqualTo("{}");
    assertThat(response.headers().get("grpc-status")).isEqualTo("2");
    assertThat(trailers.get("x-trailer")).as("passed on as they are").isEqualTo("1");
    assertThat(stream.injectedResponse).isEmpty();
  }

  @Test
  void aNonGrpcResponseWithoutABodyPassesWithItsContentTypeChanged() {
    start("content-type", "application/grpc-web");
    ResponseHeaders response = response(404, "content-length", "0");
    assertThat(filter.encodeHeaders(response, true)).isEqualTo(FilterHeadersStatus.CONTINUE);
    assertThat(response.headers().contains("grpc-status")).as("Envoy adds none here").isFalse();
    assertThat(response.headers().get("content-type")).isEqualTo("application/grpc-web+proto");
    assertThat(response.headers().contains("content-length")).isFalse();
  }

  @Test
  void aLocalReplyReplacingAHeldResponseStartsOver() {
    start("content-type", "application/grpc-web");
    filter.encodeHeaders(response(502, "content-type", "text/plain"), false);
    filter.encodeData(ascii("upstream page"), false);
    ResponseHeaders reply = response(504, "content-type", "text/plain", "content-length", "15");
    assertThat(filter.encodeHeaders(reply, false)).isEqualTo(FilterHeadersStatus.STOP_ITERATION);
    filter.encodeData(ascii("upstream timeout"), true);
    assertThat(reply.headers().get("grpc-message")).isEqualTo("upstream timeout");
    assertThat(reply.headers().get("grpc-status")).isEqualTo("14");
    filter.onDestroy();
  }

  @Test
  void mapsHttpStatusesAsGrpcsMappingDoes() {
    assertThat(GrpcWebFilter.grpcStatusOf(400)).isEqualTo(13);
    assertThat(GrpcWebFilter.grpcStatusOf(401)).isEqualTo(16);
    assertThat(GrpcWebFilter.grpcStatusOf(403)).isEqualTo(7);
    assertThat(GrpcWebFilter.grpcStatusOf(404)).isEqualTo(12);
    for (int s : new int[] {429, 502, 503, 504}) {
      assertThat(GrpcWebFilter.grpcStatusOf(s)).isEqualTo(14);
    }
    for (int s : new int[] {200, 302, 405, 500}) {
      assertThat(GrpcWebFilter.grpcStatusOf(s)).isEqualTo(2);
    }
  }

  @Test
  void percentEncodesWhatAGrpcMessageMayNotCarry() {
    ByteBuf body = Unpooled.copiedBuffer("caf\u00e9 ~ 50% \t ok", StandardCharsets.UTF_8);
    assertThat(GrpcWebFilter.percentEncode(body)).isEqualTo("caf%C3%A9 %7E 50%25 %09 ok");
    body.release();
    assertThat(GrpcWebFilter.percentEncode(null)).isEmpty();
  }
}
