package io.spillway.edge.http.message;

import io.netty.handler.codec.http.DefaultHttpHeadersFactory;
import io.netty.handler.codec.http.HttpHeaderNames;
import io.netty.handler.codec.http.HttpHeaders;
import io.netty.handler.codec.http2.DefaultHttp2Headers;
import io.netty.handler.codec.http2.Http2Headers;
import io.netty.handler.codec.http2.HttpConversionUtil;
import io.netty.util.AsciiString;
import java.util.Map;

/**
 * The model's field maps and HTTP/2 HEADERS frames, both ways, for the downstream and the upstream
 * HTTP/2 codecs alike (RFC 9113 §8.2): pseudo-header fields stay out of the map, cookie crumbs
 * are joined with "; " (§8.2.3), and a map written as a frame has its names lower-cased and its
 * connection-specific fields dropped (§8.2.2).
 */
public final class Http2Fields {
  private Http2Fields() {}

  /** An empty field map without per-call name validation: every writer is the edge itself or a codec that validated. */
  public static HttpHeaders newFields() {
    return DefaultHttpHeadersFactory.headersFactory().withValidation(false).newHeaders();
  }

  /** The regular fields of a HEADERS frame. */
  public static HttpHeaders fromFrame(Http2Headers frame) {
    HttpHeaders out = newFields();
    StringBuilder cookie = null;
    for (Map.Entry<CharSequence, CharSequence> e : frame) {
      CharSequence name = e.getKey();
      if (name.length() > 0 && name.charAt(0) == ':') {
        continue;
      }
      if (AsciiString.contentEquals(name, HttpHeaderNames.COOKIE)) {
        cookie = cookie == null ? new StringBuilder(e.getValue()) : cookie.append("; ").append(e.getValue());
        continue;
      }
      out.add(name, e.getValue());
    }
    if (cookie != null) {
      out.set(HttpHeaderNames.COOKIE, cookie.toString());
    }
    return out;
  }

  /** A frame's fields from the map, with room for {@code pseudoFields} pseudo-header fields the caller sets. */
  public static Http2Headers toFrame(HttpHeaders fields, int pseudoFields) {
    Http2Headers out = new DefaultHttp2Headers(false, fields.size() + pseudoFields);
    HttpConversionUtil.toHttp2Headers(fields, out);
    return out;
  }
}
