package io.spillway.edge.http.message;

import io.netty.handler.codec.http.HttpHeaders;
import io.spillway.edge.router.RequestView;

/**
 * A request's head as the filter chain sees it, whatever the protocol it came in on: the four
 * pseudo-header values of RFC 9113 §8.3.1 as fields, and every other field in one multimap. The
 * HTTP/1.1 codec fills it from the request line and headers ({@code Host} becomes the authority,
 * RFC 9112 §3.2); the HTTP/2 codec from the HEADERS frame. The upstream codecs write it out in
 * their own protocol. Owned by one stream on one worker; filters change it in place.
 *
 * <p>{@link #headers()} holds no {@code host} and no pseudo-header entries: change the authority
 * through {@link #setAuthority}.
 */
public final class RequestHeaders implements RequestView {
  private String method;
  private String scheme;
  private String authority;
  private String pathAndQuery;
  private final HttpHeaders headers;
  private String path;
  private String query;

  /**
   * @param pathAndQuery the request target in origin form ({@code /a/b?x=1}), or {@code *}
   * @param headers every other field, without {@code host} or pseudo-headers
   */
  public RequestHeaders(String method, String scheme, String authority, String pathAndQuery, HttpHeaders headers) {
    this.method = method;
    this.scheme = scheme;
    this.authority = authority == null ? "" : authority;
    this.headers = headers;
    setPathAndQuery(pathAndQuery);
  }

  public String method() {
    return method;
  }

  public void setMethod(String method) {
    this.method = method;
  }

  public String scheme() {
    return scheme;
  }

  public void setScheme(String scheme) {
    this.scheme = scheme;
  }

  /** Host or :authority, as received (may include a port); never null, may be empty. */
  @Override
  public String authority() {
    return authority;
  }

  public void setAuthority(String authority) {
    this.authority = authority;
  }

  /** The :path: path and query as sent upstream. */
  public String pathAndQuery() {
    return pathAndQuery;
  }

  public void setPathAndQuery(String pathAndQuery) {
    this.pathAndQuery = pathAndQuery;
    int q = pathAndQuery.indexOf('?');
    if (q < 0) {
      path = pathAndQuery;
      query = "";
    } else {
      path = pathAndQuery.substring(0, q);
      query = pathAndQuery.substring(q + 1);
    }
  }

  @Override
  public String path() {
    return path;
  }

  @Override
  public String query() {
    return query;
  }

  /** Every field but the pseudo-headers and {@code host}. */
  public HttpHeaders headers() {
    return headers;
  }

  @Override
  public String header(String name) {
    if (name.charAt(0) == ':') {
      return switch (name) {
        case ":authority" -> authority;
        case ":method" -> method;
        case ":path" -> pathAndQuery;
        case ":scheme" -> scheme;
        default -> null;
      };
    }
    if (name.equals("host")) {
      return authority;
    }
    return headers.get(name);
  }

  @Override
  public String headerValues(String name) {
    if (name.charAt(0) == ':' || name.equals("host")) {
      return header(name);
    }
    java.util.List<String> all = headers.getAll(name);
    return switch (all.size()) {
      case 0 -> null;
      case 1 -> all.get(0);
      default -> String.join(",", all);
    };
  }

  public boolean isHead() {
    return method.equals("HEAD");
  }
}
