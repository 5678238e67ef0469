package io.spillway.edge.http;

import io.spillway.edge.config.HttpConnectionManagerConfig;
import io.spillway.edge.http.message.RequestHeaders;

/**
 * What the connection manager refuses before any filter sees a request: more header fields than
 * {@code max_request_headers_count} (431, the Host field counted too) and no authority (RFC 9112
 * §3.2, RFC 9113 §8.3.1: 400). A CONNECT goes on as an upgrade: refused with 403 unless
 * {@code upgrade_configs} enable it, as in Envoy.
 *
 * @param status the refusal's status
 * @param detail its body and response code details
 * @param tooLarge whether it counts as {@code downstream_rq_too_large}
 */
record RequestChecks(int status, String detail, boolean tooLarge) {
  private static final RequestChecks TOO_MANY_FIELDS = new RequestChecks(431, "Request Header Fields Too Large", true);
  private static final RequestChecks NO_HOST = new RequestChecks(400, "missing host header", false);

  /** The refusal for {@code headers}, or {@code null} when the request may go on. */
  static RequestChecks refusal(RequestHeaders headers, HttpConnectionManagerConfig config) {
    int count = headers.headers().size() + (headers.authority().isEmpty() ? 0 : 1);
    if (count > config.maxRequestHeadersCount()) {
      return TOO_MANY_FIELDS;
    }
    if (headers.authority().isEmpty()) {
      return NO_HOST;
    }
    return null;
  }
}
