package io.spillway.edge.http.message;

import io.netty.handler.codec.http.HttpHeaderNames;
import io.netty.handler.codec.http.HttpHeaders;
import io.netty.handler.codec.http2.HttpConversionUtil;
import io.netty.util.AsciiString;
import java.util.ArrayList;
import java.util.List;

/**
 * Removes connection-specific headers before a message crosses the proxy (RFC 9110 §7.6.1): the
 * fixed hop-by-hop set, every header named in {@code Connection}, and the extension headers
 * Netty's HTTP/2-to-HTTP/1 conversion adds.
 */
public final class HopByHop {
  private static final List<AsciiString> FIXED = List.of(
      HttpHeaderNames.CONNECTION,
      AsciiString.cached("keep-alive"), // not standard headers (Netty deprecates their constants), still stripped
      AsciiString.cached("proxy-connection"),
      HttpHeaderNames.TRANSFER_ENCODING,
      HttpHeaderNames.UPGRADE,
      HttpConversionUtil.ExtensionHeaderNames.STREAM_ID.text(),
      HttpConversionUtil.ExtensionHeaderNames.SCHEME.text(),
      HttpConversionUtil.ExtensionHeaderNames.PATH.text(),
      HttpConversionUtil.ExtensionHeaderNames.STREAM_PROMISE_ID.text(),
      HttpConversionUtil.ExtensionHeaderNames.STREAM_DEPENDENCY_ID.text(),
      HttpConversionUtil.ExtensionHeaderNames.STREAM_WEIGHT.text());

  private HopByHop() {}

  /**
   * Strips hop-by-hop headers. {@code TE} survives only as {@code TE: trailers} (the one value a
   * proxy may forward). One pass over the names with cheap comparisons; removals (rare) follow.
   */
  public static void strip(HttpHeaders headers) {
    List<CharSequence> doomed = null;
    String connection = null;
    for (var it = headers.iteratorCharSequence(); it.hasNext(); ) {
      var e = it.next();
      CharSequence name = e.getKey();
      if (isHopByHop(name)) {
        if (doomed == null) {
          doomed = new ArrayList<>(4);
        }
        doomed.add(name);
        if (AsciiString.contentEqualsIgnoreCase(name, HttpHeaderNames.CONNECTION)) {
          connection = e.getValue().toString();
        }
      } else if (AsciiString.contentEqualsIgnoreCase(name, HttpHeaderNames.TE)
          && !e.getValue().toString().trim().equalsIgnoreCase("trailers")) {
        if (doomed == null) {
          doomed = new ArrayList<>(4);
        }
        doomed.add(name);
      }
    }
    if (doomed == null) {
      return;
    }
    if (connection != null) {
      for (String token : connection.split(",")) {
        String name = token.trim();
        if (!name.isEmpty()) {
          doomed.add(name);
        }
      }
    }
    for (int i = 0; i < doomed.size(); i++) {
      headers.remove(doomed.get(i));
    }
  }

  private static boolean isHopByHop(CharSequence name) {
    int n = name.length();
    // Every fixed name is at least 7 ("upgrade") long and starts with c, k, p, t, u or x.
    if (n < 7) {
      return false;
    }
    switch (name.charAt(0) | 0x20) {
      case 'c', 'k', 'p', 't', 'u', 'x' -> { }
      default -> {
        return false;
      }
    }
    for (int i = 0; i < FIXED.size(); i++) {
      AsciiString h = FIXED.get(i);
      if (h.length() == n && AsciiString.contentEqualsIgnoreCase(name, h)) {
        return true;
      }
    }
    return false;
  }
}
