package io.spillway.edge.http;

import io.netty.handler.codec.http.HttpHeaderNames;
import io.netty.handler.codec.http.HttpHeaders;
import io.netty.handler.codec.http2.HttpConversionUtil;
import io.netty.util.AsciiString;
import java.util.List;

/**
 * Removes connection-specific headers before a message crosses the proxy (RFC 9110 §7.6.1): the
 * fixed hop-by-hop set, every header named in {@code Connection}, and the extension headers
 * Netty's HTTP/2-to-HTTP/1 conversion adds.
 */
final class HopByHop {
  private static final List<AsciiString> FIXED = List.of(
      HttpHeaderNames.CONNECTION,
      HttpHeaderNames.KEEP_ALIVE,
      HttpHeaderNames.PROXY_CONNECTION,
      HttpHeaderNames.TRANSFER_ENCODING,
      HttpHeaderNames.UPGRADE,
      HttpHeaderNames.PROXY_AUTHENTICATE,
      HttpHeaderNames.PROXY_AUTHORIZATION,
      HttpHeaderNames.TRAILER,
      HttpConversionUtil.ExtensionHeaderNames.STREAM_ID.text(),
      HttpConversionUtil.ExtensionHeaderNames.SCHEME.text(),
      HttpConversionUtil.ExtensionHeaderNames.PATH.text(),
      HttpConversionUtil.ExtensionHeaderNames.STREAM_PROMISE_ID.text(),
      HttpConversionUtil.ExtensionHeaderNames.STREAM_DEPENDENCY_ID.text(),
      HttpConversionUtil.ExtensionHeaderNames.STREAM_WEIGHT.text());

  private HopByHop() {}

  /**
   * Strips hop-by-hop headers. {@code TE} survives only as {@code TE: trailers} (the one value a
   * proxy may forward).
   */
  static void strip(HttpHeaders headers) {
    String connection = headers.get(HttpHeaderNames.CONNECTION);
    if (connection != null) {
      for (String token : connection.split(",")) {
        String name = token.trim();
        if (!name.isEmpty()) {
          headers.remove(name);
        }
      }
    }
    for (int i = 0; i < FIXED.size(); i++) {
      headers.remove(FIXED.get(i));
    }
    String te = headers.get(HttpHeaderNames.TE);
    if (te != null && !te.trim().equalsIgnoreCase("trailers")) {
      headers.remove(HttpHeaderNames.TE);
    }
  }
}
