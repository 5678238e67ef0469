package io.spillway.edge.http;

import io.netty.handler.codec.http.HttpResponseStatus;

/**
 * Why an HTTP/1 request is refused and the status that answers it, carried as the cause of a
 * failed decoder result from {@link Http1RequestDecoder} or {@link Http1RequestConformance} to
 * {@link Http1RequestValidator}, which answers and closes. Hostile input is cheap to refuse: no
 * stack trace is taken.
 */
final class Http1Refusal extends RuntimeException {
  private final HttpResponseStatus status;

  Http1Refusal(HttpResponseStatus status, String reason) {
    super(reason, null, false, false);
    this.status = status;
  }

  /** A 400 Bad Request. */
  static Http1Refusal badRequest(String reason) {
    return new Http1Refusal(HttpResponseStatus.BAD_REQUEST, reason);
  }

  HttpResponseStatus status() {
    return status;
  }
}
