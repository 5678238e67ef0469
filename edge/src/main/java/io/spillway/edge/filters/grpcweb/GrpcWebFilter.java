package io.spillway.edge.filters.grpcweb;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufAllocator;
import io.netty.buffer.Unpooled;
import io.netty.handler.codec.http.HttpHeaderNames;
import io.netty.handler.codec.http.HttpHeaderValues;
import io.netty.handler.codec.http.HttpHeaders;
import io.netty.util.AsciiString;
import io.spillway.edge.http.filter.DecoderFilterCallbacks;
import io.spillway.edge.http.filter.EncoderFilterCallbacks;
import io.spillway.edge.http.filter.FilterChainBuilder;
import io.spillway.edge.http.filter.FilterDataStatus;
import io.spillway.edge.http.filter.FilterHeadersStatus;
import io.spillway.edge.http.filter.FilterTrailersStatus;
import io.spillway.edge.http.filter.HttpFilterFactory;
import io.spillway.edge.http.filter.StreamFilter;
import io.spillway.edge.http.message.RequestHeaders;
import io.spillway.edge.http.message.ResponseHeaders;
import java.nio.charset.StandardCharsets;

/**
 * One stream's gRPC-Web bridge (Envoy's {@code GrpcWebFilter}; grpc/grpc PROTOCOL-WEB.md).
 *
 * <p>A request with a path whose {@code content-type} is exactly {@code application/grpc-web},
 * {@code application/grpc-web+proto}, {@code application/grpc-web-text} or
 * {@code application/grpc-web-text+proto} goes upstream as gRPC: {@code content-type:
 * application/grpc}, {@code te: trailers}, no {@code content-length} (it counted the HTTP/1 body,
 * not the frames), and {@code grpc-accept-encoding: identity,deflate,gzip} unless the client sent
 * one. A text request's body is base64-decoded as it arrives ({@link GrpcWebTextDecoder}); a body
 * that is not base64, or ends inside a quantum, gets Envoy's 400 {@code Bad gRPC-web request,
 * invalid base64 data.} Every other request passes untouched, and so does its response.
 *
 * <p>The response gets {@code content-type: application/grpc-web-text+proto} when the request's
 * {@code accept} was {@code application/grpc-web-text} or {@code application/grpc-web-text+proto},
 * else {@code application/grpc-web+proto}, and no {@code content-length}. The upstream's trailers
 * become the body's last frame ({@link TrailerFrame}); a trailers-only response (its
 * {@code grpc-status} in the headers, no body) stays as it is, which the protocol allows. A text
 * response's frames are base64-encoded one by one ({@link GrpcWebTextEncoder}), the trailer frame
 * too. A response that is neither gRPC (200 with {@code application/grpc} or
 * {@code application/grpc+…}) nor gRPC-Web — an upstream error page, or a local reply — keeps its
 * status, and its body (the first 16 KiB) becomes a percent-encoded {@code grpc-message} with a
 * {@code grpc-status} mapped from the HTTP status (grpc/grpc http-grpc-status-mapping.md),
 * {@code content-length: 0} and no body, as Envoy does.
 */
public final class GrpcWebFilter implements StreamFilter {

  static final String GRPC = "application/grpc";
  static final String GRPC_WEB = "application/grpc-web";
  static final String GRPC_WEB_PROTO = "application/grpc-web+proto";
  static final String GRPC_WEB_TEXT = "application/grpc-web-text";
  static final String GRPC_WEB_TEXT_PROTO = "application/grpc-web-text+proto";
  /** Envoy's {@code grpc-accept-encoding} default. */
  static final String ACCEPT_ENCODING_DEFAULT = "identity,deflate,gzip";
  static final String INVALID_BASE64 = "Bad gRPC-web request, invalid base64 data.";
  /** Envoy's response code details of the two base64 refusals. */
  static final String DETAILS_BAD_SIZE = "grpc_base_64_decode_failed_bad_size";
  static final String DETAILS_BAD_DATA = "grpc_base_64_decode_failed";
  /** How much of a non-gRPC response's body becomes its grpc-message (Envoy's MAX_BUFFERED_PLAINTEXT_LENGTH). */
  static final int MAX_MESSAGE_BYTES = 16384;

  private static final AsciiString GRPC_ACCEPT_ENCODING =
      AsciiString.cached("grpc-accept-encoding");
  private static final AsciiString GRPC_STATUS = AsciiString.cached("grpc-status");
  private static final AsciiString GRPC_MESSAGE = AsciiString.cached("grpc-message");
  private static final byte[] HEX = "0123456789ABCDEF".getBytes(StandardCharsets.US_ASCII);

  private DecoderFilterCallbacks decoder;
  private EncoderFilterCallbacks encoder;
  private boolean grpcWeb;
  private boolean textResponse;
  /** The request body's base64 decoder; null for a binary request. */
  private GrpcWebTextDecoder requestText;
  /** The response body's base64 encoder; null until a text response's headers pass. */
  private GrpcWebTextEncoder responseText;
  /** The held head of a response that is not gRPC, and the start of its body. */
  private ResponseHeaders heldHead;
  private ByteBuf heldBody;

  GrpcWebFilter() {}

  /**
   * The factory of one {@code http_filters} entry: the filter has no settings, and Spillway keeps
   * none of Envoy's per-method stats for it (see docs/configuration.md).
   *
   * @param name the entry's name, for typed_per_filter_config
   */
  public static HttpFilterFactory factory(String name) {
    return new HttpFilterFactory() {
      @Override
      public String name() {
        return name;
      }

      @Override
      public void createFilters(FilterChainBuilder chain) {
        chain.addStreamFilter(new GrpcWebFilter());
      }
    };
  }

  @Override
  public void setDecoderFilterCallbacks(DecoderFilterCallbacks callbacks) {
    this.decoder = callbacks;
  }

  @Override
  public void setEncoderFilterCallbacks(EncoderFilterCallbacks callbacks) {
    this.encoder = callbacks;
  }

  // ---- the request ---------------------------------------------------------------------------

  @Override
  public FilterHeadersStatus decodeHeaders(RequestHeaders request, boolean endStream) {
    HttpHeaders h = request.headers();
    String contentType = h.get(HttpHeaderNames.CONTENT_TYPE);
    if (!isGrpcWebRequest(request.pathAndQuery(), contentType)) {
      return FilterHeadersStatus.CONTINUE;
    }
    grpcWeb = true;
    h.remove(HttpHeaderNames.CONTENT_LENGTH);
    if (contentType.equals(GRPC_WEB_TEXT) || contentType.equals(GRPC_WEB_TEXT_PROTO)) {
      requestText = new GrpcWebTextDecoder();
    }
    h.set(HttpHeaderNames.CONTENT_TYPE, GRPC);
    String accept = h.get(HttpHeaderNames.ACCEPT);
    textResponse = GRPC_WEB_TEXT.equals(accept) || GRPC_WEB_TEXT_PROTO.equals(accept);
    h.set(HttpHeaderNames.TE, HttpHeaderValues.TRAILERS);
    if (!h.contains(GRPC_ACCEPT_ENCODING)) {
      h.set(GRPC_ACCEPT_ENCODING, ACCEPT_ENCODING_DEFAULT);
    }
    return FilterHeadersStatus.CONTINUE;
  }

  /** Envoy's test: a path, and one of the four content types exactly (no parameters, case as written). */
  static boolean isGrpcWebRequest(String path, String contentType) {
    return path != null && !path.isEmpty() && contentType != null
        && (contentType.equals(GRPC_WEB) || contentType.equals(GRPC_WEB_PROTO)
            || contentType.equals(GRPC_WEB_TEXT) || contentType.equals(GRPC_WEB_TEXT_PROTO));
  }

  @Override
  public FilterDataStatus decodeData(ByteBuf data, boolean endStream) {
    if (requestText == null) {
      return FilterDataStatus.CONTINUE;
    }
    if (endStream && (requestText.pending() + data.readableBytes()) % 4 != 0) {
      data.release();
      refuse(DETAILS_BAD_SIZE);
      return FilterDataStatus.STOP_ITERATION_NO_BUFFER;
    }
    ByteBuf decoded = requestText.decode(data, decoder.worker().allocator());
    data.release();
    if (decoded == null) {
      refuse(DETAILS_BAD_DATA);
      return FilterDataStatus.STOP_ITERATION_NO_BUFFER;
    }
    if (decoded.isReadable() || endStream) {
      decoder.injectDecodedData(decoded);
    } else {
      decoded.release();
    }
    return FilterDataStatus.STOP_ITERATION_NO_BUFFER;
  }

  @Override
  public FilterTrailersStatus decodeTrailers(HttpHeaders trailers) {
    if (requestText != null && requestText.pending() != 0) {
      // The body ended inside a quantum: what it held cannot be decoded.
      refuse(DETAILS_BAD_SIZE);
      return FilterTrailersStatus.STOP_ITERATION;
    }
    return FilterTrailersStatus.CONTINUE;
  }

  private void refuse(String details) {
    requestText = null;
    decoder.streamInfo().setResponseCodeDetails(details);
    decoder.sendLocalReply(400, INVALID_BASE64, null);
  }

  // ---- the response --------------------------------------------------------------------------

  @Override
  public FilterHeadersStatus encodeHeaders(ResponseHeaders response, boolean endStream) {
    if (!grpcWeb) {
      return FilterHeadersStatus.CONTINUE;
    }
    // A local reply replaces a response that had not reached the client: start over.
    releaseHeld();
    responseText = null;
    HttpHeaders h = response.headers();
    boolean transform = !isGrpcResponse(response, endStream) && !isGrpcWebProtoResponse(response);
    h.remove(HttpHeaderNames.CONTENT_LENGTH);
    h.set(HttpHeaderNames.CONTENT_TYPE, textResponse ? GRPC_WEB_TEXT_PROTO : GRPC_WEB_PROTO);
    if (endStream) {
      return FilterHeadersStatus.CONTINUE;
    }
    if (transform) {
      heldHead = response;
      return FilterHeadersStatus.STOP_ITERATION;
    }
    if (textResponse) {
      responseText = new GrpcWebTextEncoder();
    }
    return FilterHeadersStatus.CONTINUE;
  }

  @Override
  public FilterDataStatus encodeData(ByteBuf data, boolean endStream) {
    if (heldHead != null) {
      keepForMessage(data);
      data.release();
      if (endStream) {
        releaseHeldHead();
        encoder.continueEncoding();
      }
      return FilterDataStatus.STOP_ITERATION_NO_BUFFER;
    }
    if (responseText == null) {
      return FilterDataStatus.CONTINUE;
    }
    ByteBuf encoded = responseText.encode(data, endStream, encoder.worker().allocator());
    data.release();
    if (encoded.isReadable() || endStream) {
      encoder.injectEncodedData(encoded);
    } else {
      encoded.release();
    }
    return FilterDataStatus.STOP_ITERATION_NO_BUFFER;
  }

  @Override
  public FilterTrailersStatus encodeTrailers(HttpHeaders trailers) {
    if (!grpcWeb) {
      return FilterTrailersStatus.CONTINUE;
    }
    if (heldHead != null) {
      releaseHeldHead();
      encoder.continueEncoding();
      return FilterTrailersStatus.CONTINUE;
    }
    ByteBufAllocator alloc = encoder.worker().allocator();
    ByteBuf frame = TrailerFrame.of(trailers, alloc);
    if (textResponse) {
      if (responseText != null) {
        ByteBuf rest = responseText.encode(Unpooled.EMPTY_BUFFER, true, alloc); // a body cut inside a frame
        if (rest.isReadable()) {
          encoder.injectEncodedData(rest);
        } else {
          rest.release();
        }
      }
      ByteBuf text = GrpcWebTextEncoder.encodeWhole(frame, alloc);
      frame.release();
      frame = text;
    }
    encoder.injectEncodedData(frame);
    trailers.clear();
    return FilterTrailersStatus.CONTINUE;
  }

  @Override
  public void onDestroy() {
    releaseHeld();
  }

  /** Envoy's {@code isGrpcResponseHeaders}: trailers-only with a grpc-status, or 200 with a gRPC content type. */
  static boolean isGrpcResponse(ResponseHeaders response, boolean endStream) {
    if (endStream) {
      return response.headers().contains(GRPC_STATUS);
    }
    String type = response.headers().get(HttpHeaderNames.CONTENT_TYPE);
    return response.status() == 200 && type != null && type.startsWith(GRPC)
        && (type.length() == GRPC.length() || type.charAt(GRPC.length()) == '+');
  }

  /** A 200 whose media type (parameters aside, any case) is application/grpc-web or application/grpc-web+proto. */
  static boolean isGrpcWebProtoResponse(ResponseHeaders response) {
    String type = response.headers().get(HttpHeaderNames.CONTENT_TYPE);
    if (response.status() != 200 || type == null) {
      return false;
    }
    int semicolon = type.indexOf(';');
    String media = (semicolon < 0 ? type : type.substring(0, semicolon)).stripTrailing();
    return media.equalsIgnoreCase(GRPC_WEB) || media.equalsIgnoreCase(GRPC_WEB_PROTO);
  }

  /** Keeps what still fits of a non-gRPC response's body for its grpc-message. */
  private void keepForMessage(ByteBuf data) {
    int room = MAX_MESSAGE_BYTES - (heldBody == null ? 0 : heldBody.readableBytes());
    int take = Math.min(room, data.readableBytes());
    if (take <= 0) {
      return;
    }
    if (heldBody == null) {
      heldBody = encoder.worker().allocator().buffer(take);
    }
    heldBody.writeBytes(data, data.readerIndex(), take);
  }

  /** Turns the held head into a gRPC status: grpc-status from the HTTP status, the body as grpc-message. */
  private void releaseHeldHead() {
    HttpHeaders h = heldHead.headers();
    h.set(GRPC_MESSAGE, percentEncode(heldBody));
    h.set(GRPC_STATUS, Integer.toString(grpcStatusOf(heldHead.status())));
    h.set(HttpHeaderNames.CONTENT_LENGTH, "0");
    releaseHeld();
  }

  private void releaseHeld() {
    heldHead = null;
    if (heldBody != null) {
      heldBody.release();
      heldBody = null;
    }
  }

  /**
   * grpc/grpc http-grpc-status-mapping.md, as Envoy maps it: 400 INTERNAL, 401 UNAUTHENTICATED, 403
   * PERMISSION_DENIED, 404 UNIMPLEMENTED, 429/502/503/504 UNAVAILABLE, anything else UNKNOWN.
   */
  static int grpcStatusOf(int httpStatus) {
    return switch (httpStatus) {
      case 400 -> 13;
      case 401 -> 16;
      case 403 -> 7;
      case 404 -> 12;
      case 429, 502, 503, 504 -> 14;
      default -> 2;
    };
  }

  /**
   * The grpc-message form of a body (grpc/grpc PROTOCOL-HTTP2.md, "Responses"): bytes outside
   * {@code 0x20}–{@code 0x7d}, and {@code %}, as {@code %XX}; Envoy escapes {@code ~} too.
   */
  static String percentEncode(ByteBuf body) {
    if (body == null || !body.isReadable()) {
      return "";
    }
    StringBuilder out = new StringBuilder(body.readableBytes() + 16);
    for (int i = body.readerIndex(); i < body.writerIndex(); i++) {
      int b = body.getByte(i) & 0xff;
      if (b < 0x20 || b >= 0x7e || b == '%') {
        out.append('%').append((char) HEX[b >> 4]).append((char) HEX[b & 0x0f]);
      } else {
        out.append((char) b);
      }
    }
    return out.toString();
  }
}
