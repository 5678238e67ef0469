package io.spillway.edge.http;

import io.netty.buffer.ByteBuf;
import io.netty.channel.ChannelHandlerContext;
import io.netty.handler.codec.DecoderResult;
import io.netty.handler.codec.http.HttpContent;
import io.netty.handler.codec.http.HttpDecoderConfig;
import io.netty.handler.codec.http.HttpHeaderNames;
import io.netty.handler.codec.http.HttpMessage;
import io.netty.handler.codec.http.HttpRequest;
import io.netty.handler.codec.http.HttpRequestDecoder;
import io.netty.handler.codec.http.HttpResponseStatus;
import io.netty.handler.codec.http.HttpVersion;
import io.netty.handler.codec.http.LastHttpContent;
import io.netty.util.AsciiString;
import io.spillway.edge.http.message.UpgradeHeaders;
import java.util.List;

/**
 * The first handler of an HTTP/1.1 downstream connection: Netty's request decoder, strict where
 * RFC 9112 lets a recipient be lenient, because a proxy that reads a request differently from the
 * server behind it is a smuggling vector. {@link HttpPipelines} turns on the rest (CRLF line
 * endings only, RFC 9112 §2.2; field name and value validation, RFC 9110 §5.1 and §5.5; the
 * Transfer-Encoding rules of RFC 9112 §6.1 and §6.3; one Content-Length).
 *
 * <ul>
 *   <li>Request line (RFC 9112 §3): method, request-target and version are separated by exactly one
 *       SP; the method is a token (RFC 9110 §9.1); the request-target is visible US-ASCII without
 *       {@code #} (RFC 9112 §3.2: no whitespace, no control characters, no fragment, RFC 9110 §7.1).
 *   <li>HTTP-version (RFC 9112 §2.3): {@code HTTP/} DIGIT {@code .} DIGIT, case-sensitive, else 400;
 *       a major version other than 1 is 505 HTTP Version Not Supported (RFC 9110 §15.6.6); a 1.x
 *       minor version above 1 is read as HTTP/1.1 (RFC 9110 §2.5).
 *   <li>Field lines (RFC 9112 §5.2, §2.2): a line of the head that starts with SP or HTAB — an
 *       obs-fold, or whitespace before the first field line — is refused with 400 instead of being
 *       unfolded, as nginx does. (In a chunked trailer section Netty replaces an obs-fold with SP,
 *       which §5.2 also allows.)
 *   <li>Framing (RFC 9112 §6.1, §6.3): Transfer-Encoding with Content-Length is refused instead of
 *       having its Content-Length dropped; more than one Content-Length field line is refused on
 *       HTTP/1.0 as on HTTP/1.1 (Netty would keep the first).
 * </ul>
 *
 * <p>A refusal becomes a failed {@link HttpMessage} whose cause is an {@link Http1Refusal} (or
 * Netty's own exception); everything after it is discarded. {@link Http1RequestValidator} answers
 * it and closes the connection.
 */
final class Http1RequestDecoder extends HttpRequestDecoder {
  private static final byte SP = ' ';
  private static final byte HTAB = '\t';
  private static final byte LF = '\n';

  /** tchar of RFC 9110 §5.6.2. */
  private static final boolean[] TCHAR = new boolean[256];
  /** The bytes a request-target may hold: visible US-ASCII except {@code #}. */
  private static final boolean[] TARGET = new boolean[256];

  static {
    for (int c = '0'; c <= '9'; c++) {
      TCHAR[c] = true;
    }
    for (int c = 'A'; c <= 'Z'; c++) {
      TCHAR[c] = true;
      TCHAR[c + ('a' - 'A')] = true;
    }
    for (char c : "!#$%&'*+-.^_`|~".toCharArray()) {
      TCHAR[c] = true;
    }
    for (int c = 0x21; c <= 0x7E; c++) {
      TARGET[c] = c != '#';
    }
  }

  /** Waiting for, or reading, a request head. */
  private static final int HEAD = 0;
  /** Reading a request body. */
  private static final int BODY = 1;
  /** A message failed: the rest of the connection's bytes are discarded. */
  private static final int BROKEN = 2;
  /**
   * A body-less HTTP/1.1 request asked to switch protocols (RFC 9110 §7.8): whatever follows is
   * either the new protocol, once the connection handler has switched and removed this decoder
   * (the bytes held here go on to it), or nothing, since the connection closes after any other
   * answer. Nothing more is decoded.
   */
  private static final int UPGRADE = 3;

  private int state = HEAD;
  /** The next byte of the head starts a line. */
  private boolean atLineStart = true;
  /** Offsets in the request line being split, from the method and request-target callbacks. */
  private int methodEnd;
  private int targetStart;
  private int targetEnd;
  /** Content-Length field lines in the head being read. */
  private int contentLengthLines;

  Http1RequestDecoder(HttpDecoderConfig config) {
    super(config);
  }

  @Override
  protected void decode(ChannelHandlerContext ctx, ByteBuf in, List<Object> out) throws Exception {
    if (state == BROKEN) {
      in.skipBytes(in.readableBytes());
      return;
    }
    if (state == UPGRADE) {
      return;
    }
    int from = in.readerIndex();
    int first = out.size();
    super.decode(ctx, in, out);
    if (state == HEAD) {
      afterHeadBytes(in, from, out, first);
    } else {
      afterBodyBytes(out, first);
    }
  }

  /** Checks the head lines just consumed; notes where the request goes next. */
  private void afterHeadBytes(ByteBuf in, int from, List<Object> out, int first) {
    HttpRequest request = null;
    boolean complete = false;
    for (int i = first; i < out.size(); i++) {
      Object decoded = out.get(i);
      if (decoded instanceof HttpRequest r) {
        request = r;
      }
      if (decoded instanceof LastHttpContent) {
        complete = true;
      }
    }
    if (request != null && request.decoderResult().isFailure()) {
      state = BROKEN;
      return;
    }
    if (lineStartsWithWhitespace(in, from, in.readerIndex())) {
      refuse(in, out, request, Http1Refusal.badRequest("obs-fold or whitespace at the start of a header line"));
      return;
    }
    if (request != null) {
      if (contentLengthLines > 1) {
        refuse(in, out, request, Http1Refusal.badRequest("more than one Content-Length"));
        return;
      }
      contentLengthLines = 0;
      atLineStart = true;
      state = !complete ? BODY : startsTunnel(request) ? UPGRADE : HEAD;
    }
  }

  /** CONNECT, or a request that asks to upgrade: the bytes after its head are not HTTP/1.1. */
  static boolean startsTunnel(HttpRequest request) {
    return request.method().equals(io.netty.handler.codec.http.HttpMethod.CONNECT) || asksToUpgrade(request);
  }

  /** An HTTP/1.1 request with Upgrade (other than h2c, which is never performed) and Connection: upgrade. */
  static boolean asksToUpgrade(HttpRequest request) {
    if (!request.protocolVersion().equals(HttpVersion.HTTP_1_1)) {
      return false; // RFC 9110 §7.8: Upgrade in an HTTP/1.0 request is ignored
    }
    String upgrade = UpgradeHeaders.requested(request.headers());
    return upgrade != null && !upgrade.equalsIgnoreCase("h2c");
  }

  private void afterBodyBytes(List<Object> out, int first) {
    for (int i = first; i < out.size(); i++) {
      if (out.get(i) instanceof HttpContent content) {
        if (content.decoderResult().isFailure()) {
          state = BROKEN;
          return;
        }
        if (content instanceof LastHttpContent) {
          state = HEAD;
          atLineStart = true;
        }
      }
    }
  }

  /**
   * Whether a line of the head in {@code [from, to)} starts with SP or HTAB. The decoder consumes
   * whole lines, so a line start carries over between reads in {@link #atLineStart}.
   */
  private boolean lineStartsWithWhitespace(ByteBuf in, int from, int to) {
    int i = from;
    while (i < to) {
      if (atLineStart) {
        byte b = in.getByte(i);
        if (b == SP || b == HTAB) {
          return true;
        }
      }
      int lf = in.indexOf(i, to, LF);
      if (lf < 0) {
        atLineStart = false;
        return false;
      }
      i = lf + 1;
      atLineStart = true;
    }
    return false;
  }

  /** Fails the request just decoded, or emits a failed one, and discards the rest of the input. */
  private void refuse(ByteBuf in, List<Object> out, HttpRequest decoded, Http1Refusal refusal) {
    if (decoded != null) {
      decoded.setDecoderResult(DecoderResult.failure(refusal));
    } else {
      HttpMessage invalid = createInvalidMessage();
      invalid.setDecoderResult(DecoderResult.failure(refusal));
      out.add(invalid);
    }
    state = BROKEN;
    in.skipBytes(in.readableBytes());
  }

  @Override
  protected AsciiString splitHeaderName(byte[] sb, int start, int length) {
    AsciiString name = super.splitHeaderName(sb, start, length);
    if (length == 14 && state == HEAD && name.contentEqualsIgnoreCase(HttpHeaderNames.CONTENT_LENGTH)) {
      contentLengthLines++; // Netty folds several into one on HTTP/1.0 before anyone sees them
    }
    return name;
  }

  // ---- request line (Netty splits it into three words and hands each to one of these) ----------

  @Override
  protected String splitFirstWordInitialLine(byte[] sb, int start, int length) {
    int end = start + length;
    for (int i = start; i < end; i++) {
      if (!TCHAR[sb[i] & 0xFF]) {
        throw Http1Refusal.badRequest("invalid character in the method");
      }
    }
    methodEnd = end;
    return super.splitFirstWordInitialLine(sb, start, length);
  }

  @Override
  protected String splitSecondWordInitialLine(byte[] sb, int start, int length) {
    int end = start + length;
    for (int i = start; i < end; i++) {
      if (!TARGET[sb[i] & 0xFF]) {
        throw Http1Refusal.badRequest("invalid character in the request-target");
      }
    }
    targetStart = start;
    targetEnd = end;
    return super.splitSecondWordInitialLine(sb, start, length);
  }

  @Override
  protected String splitThirdWordInitialLine(byte[] sb, int start, int length) {
    if (sb[methodEnd] != SP || targetStart != methodEnd + 1 || sb[targetEnd] != SP || start != targetEnd + 1) {
      throw Http1Refusal.badRequest("the request line's parts must be separated by single spaces");
    }
    if (length != 8 || sb[start] != 'H' || sb[start + 1] != 'T' || sb[start + 2] != 'T' || sb[start + 3] != 'P'
        || sb[start + 4] != '/' || !isDigit(sb[start + 5]) || sb[start + 6] != '.' || !isDigit(sb[start + 7])) {
      throw Http1Refusal.badRequest("invalid HTTP-version");
    }
    if (sb[start + 5] != '1') {
      throw new Http1Refusal(HttpResponseStatus.HTTP_VERSION_NOT_SUPPORTED, "HTTP major version not supported");
    }
    // HTTP/1.0 and HTTP/1.1 as Netty's constants; a later 1.x minor version is served as HTTP/1.1.
    return sb[start + 7] <= '1' ? super.splitThirdWordInitialLine(sb, start, length) : "HTTP/1.1";
  }

  private static boolean isDigit(byte b) {
    return b >= '0' && b <= '9';
  }

  @Override
  protected void handleTransferEncodingChunkedWithContentLength(HttpMessage message) {
    throw Http1Refusal.badRequest("both Transfer-Encoding and Content-Length are present");
  }
}
