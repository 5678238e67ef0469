package io.spillway.edge.http.message;

import io.netty.handler.codec.http.HttpHeaders;

/**
 * A response's head as the filter chain sees it, for either protocol: the {@code :status} and
 * every other field in one multimap (no pseudo-headers). Filters change it in place.
 */
public final class ResponseHeaders {
  private int status;
  private final HttpHeaders headers;

  public ResponseHeaders(int status, HttpHeaders headers) {
    this.status = status;
    this.headers = headers;
  }

  public int status() {
    return status;
  }

  public void setStatus(int status) {
    this.status = status;
  }

  public HttpHeaders headers() {
    return headers;
  }

  /** Whether a response with this status carries content (RFC 9110 §6.4.1). */
  public boolean mayHaveBody() {
    return status >= 200 && status != 204 && status != 304;
  }
}
