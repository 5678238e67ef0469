package io.spillway.edge.http;

import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import io.netty.handler.codec.DecoderResult;
import io.netty.handler.codec.http.HttpHeaderNames;
import io.netty.handler.codec.http.HttpHeaderValues;
import io.netty.handler.codec.http.HttpHeaders;
import io.netty.handler.codec.http.HttpMethod;
import io.netty.handler.codec.http.HttpRequest;
import io.netty.handler.codec.http.HttpResponseStatus;
import io.netty.handler.codec.http.HttpVersion;
import io.netty.util.AsciiString;
import java.util.Iterator;
import java.util.Map;

/**
 * Sits between the HTTP/1.1 decoder and {@link Http1RequestValidator} and refuses request heads
 * that parse but break a rule of RFC 9112 or RFC 9110 that Netty does not check. A refused head
 * gets a failed decoder result with an {@link Http1Refusal}; the validator answers it and closes
 * the connection, and nothing of the request goes further.
 *
 * <ul>
 *   <li>Host (RFC 9112 §3.2, RFC 9110 §7.2): an HTTP/1.1 request without one, a request with more
 *       than one, or one whose value is not {@code uri-host [ ":" port ]} (RFC 3986 §3.2.2) → 400.
 *   <li>Request-target form (RFC 9112 §3.2.1–§3.2.4): origin-form; absolute-form with scheme http
 *       or https, a non-empty host and no userinfo (RFC 9110 §4.2.1, §4.2.4); authority-form only
 *       with CONNECT; asterisk-form only with OPTIONS; anything else → 400.
 *   <li>Absolute-form (RFC 9112 §3.2.2): the target's authority wins — the received Host is
 *       replaced by it and the target becomes origin-form, so a conflicting Host is never sent on.
 *   <li>Transfer codings (RFC 9112 §6.1): the decoder has made sure the final coding is chunked; any
 *       other coding before it is one the edge does not implement → 501.
 * </ul>
 *
 * <p>One pass over the header fields, no copies of them and no regular expressions; only an
 * absolute-form target is rewritten.
 */
final class Http1RequestConformance extends ChannelInboundHandlerAdapter {

  /** reg-name of RFC 3986 §3.2.2 without pct-encoded: unreserved / sub-delims. */
  private static final boolean[] REG_NAME = new boolean[128];

  static {
    for (int c = '0'; c <= '9'; c++) {
      REG_NAME[c] = true;
    }
    for (int c = 'A'; c <= 'Z'; c++) {
      REG_NAME[c] = true;
      REG_NAME[c + ('a' - 'A')] = true;
    }
    for (char c : "-._~!$&'()*+,;=".toCharArray()) {
      REG_NAME[c] = true;
    }
  }

  @Override
  public void channelRead(ChannelHandlerContext ctx, Object msg) {
    if (msg instanceof HttpRequest request && request.decoderResult().isSuccess()) {
      Http1Refusal refusal = check(request);
      if (refusal != null) {
        request.setDecoderResult(DecoderResult.failure(refusal));
      }
    }
    ctx.fireChannelRead(msg);
  }

  /** The reason to refuse {@code request}, or null; an absolute-form target is made origin-form. */
  private static Http1Refusal check(HttpRequest request) {
    HttpHeaders headers = request.headers();
    CharSequence host = null;
    int hosts = 0;
    int transferEncodings = 0;
    CharSequence transferEncoding = null;
    for (Iterator<Map.Entry<CharSequence, CharSequence>> it = headers.iteratorCharSequence(); it.hasNext(); ) {
      Map.Entry<CharSequence, CharSequence> field = it.next();
      CharSequence name = field.getKey();
      switch (name.length()) {
        case 4 -> {
          if (AsciiString.contentEqualsIgnoreCase(name, HttpHeaderNames.HOST)) {
            hosts++;
            host = field.getValue();
          }
        }
        case 17 -> {
          if (AsciiString.contentEqualsIgnoreCase(name, HttpHeaderNames.TRANSFER_ENCODING)) {
            transferEncodings++;
            transferEncoding = field.getValue();
          }
        }
        default -> { }
      }
    }
    if (hosts > 1) {
      return Http1Refusal.badRequest("more than one Host");
    }
    if (host != null && host.length() > 0 && !isHostPort(host, 0, host.length(), false)) {
      return Http1Refusal.badRequest("invalid Host");
    }
    if (hosts == 0 && request.protocolVersion().equals(HttpVersion.HTTP_1_1)) {
      return Http1Refusal.badRequest("HTTP/1.1 request without Host");
    }
    if (transferEncodings > 1 || (transferEncodings == 1
        && !AsciiString.contentEqualsIgnoreCase(transferEncoding, HttpHeaderValues.CHUNKED))) {
      return new Http1Refusal(HttpResponseStatus.NOT_IMPLEMENTED, "transfer coding other than chunked");
    }
    return checkTarget(request, host != null && host.length() == 0);
  }

  /** RFC 9112 §3.2: the request-target's form must suit the method. */
  private static Http1Refusal checkTarget(HttpRequest request, boolean emptyHost) {
    String target = request.uri();
    HttpMethod method = request.method();
    boolean connect = method.equals(HttpMethod.CONNECT);
    if (target.isEmpty()) {
      return Http1Refusal.badRequest("empty request-target");
    }
    Http1Refusal refusal;
    if (target.charAt(0) == '/') {
      refusal = connect ? Http1Refusal.badRequest("CONNECT needs authority-form") : null;
    } else if (target.equals("*")) {
      refusal = method.equals(HttpMethod.OPTIONS) ? null : Http1Refusal.badRequest("asterisk-form is only for OPTIONS");
    } else if (connect) {
      refusal = isHostPort(target, 0, target.length(), true) ? null : Http1Refusal.badRequest("invalid authority-form");
    } else {
      return toOriginForm(request, target); // its authority replaces Host, empty or not
    }
    // An http(s) target URI with an empty host is invalid (RFC 9110 §4.2.1).
    return refusal == null && emptyHost ? Http1Refusal.badRequest("empty Host") : refusal;
  }

  /**
   * absolute-form (RFC 9112 §3.2.2): {@code http[s]://authority[path-abempty][?query]}. The
   * authority replaces Host and the rest, or "/", becomes the target.
   */
  private static Http1Refusal toOriginForm(HttpRequest request, String target) {
    int colon = target.indexOf(':');
    boolean http = colon == 4 && target.regionMatches(true, 0, "http", 0, 4)
        || colon == 5 && target.regionMatches(true, 0, "https", 0, 5);
    if (!http || !target.startsWith("//", colon + 1)) {
      return Http1Refusal.badRequest(colon < 0 ? "invalid request-target" : "absolute-form needs an http or https URI");
    }
    int authorityStart = colon + 3;
    int authorityEnd = authorityStart;
    while (authorityEnd < target.length() && target.charAt(authorityEnd) != '/' && target.charAt(authorityEnd) != '?') {
      authorityEnd++;
    }
    if (!isHostPort(target, authorityStart, authorityEnd, false)) {
      return Http1Refusal.badRequest("invalid authority in absolute-form"); // userinfo too: '@' is no host character
    }
    String rest = target.substring(authorityEnd);
    request.setUri(rest.isEmpty() ? "/" : rest.charAt(0) == '?' ? "/" + rest : rest);
    request.headers().set(HttpHeaderNames.HOST, target.substring(authorityStart, authorityEnd));
    return null;
  }

  /**
   * Whether {@code s[from, to)} is {@code uri-host [ ":" port ]} (RFC 3986 §3.2.2, §3.2.3) with a
   * non-empty host (RFC 9110 §4.2.1), and the port required for authority-form. uri-host is an
   * IP-literal in brackets, or a reg-name (which covers IPv4address); port is digits.
   */
  private static boolean isHostPort(CharSequence s, int from, int to, boolean portRequired) {
    int i = from;
    if (i < to && s.charAt(i) == '[') {
      int close = i + 1;
      while (close < to && s.charAt(close) != ']') {
        char c = s.charAt(close);
        if (!(c < 128 && REG_NAME[c]) && c != ':' && c != '%') {
          return false;
        }
        close++;
      }
      if (close == to || close == i + 1) {
        return false;
      }
      i = close + 1;
    } else {
      while (i < to && s.charAt(i) != ':') {
        char c = s.charAt(i);
        if (c == '%') {
          if (i + 2 >= to || !isHex(s.charAt(i + 1)) || !isHex(s.charAt(i + 2))) {
            return false;
          }
          i += 3;
          continue;
        }
        if (c >= 128 || !REG_NAME[c]) {
          return false;
        }
        i++;
      }
      if (i == from) {
        return false;
      }
    }
    if (i == to) {
      return !portRequired;
    }
    if (s.charAt(i) != ':' || (portRequired && i + 1 == to)) {
      return false;
    }
    for (int p = i + 1; p < to; p++) {
      char c = s.charAt(p);
      if (c < '0' || c > '9') {
        return false;
      }
    }
    return true;
  }

  private static boolean isHex(char c) {
    return (c >= '0' && c <= '9') || (c >= 'a' && c <= 'f') || (c >= 'A' && c <= 'F');
  }
}
