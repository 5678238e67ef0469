package io.spillway.edge.http;

import io.netty.handler.codec.http.HttpHeaders;
import io.netty.util.AsciiString;
import io.spillway.edge.config.HttpConnectionManagerConfig;
import io.spillway.edge.http.message.RequestHeaders;
import java.util.UUID;
import java.util.random.RandomGenerator;

/**
 * The connection manager's own changes to a request before any filter sees it (Envoy's
 * {@code ConnectionManagerUtility::mutateRequestHeaders}, the supported part): x-forwarded-for and
 * x-forwarded-proto by {@code use_remote_address}, and x-request-id by {@code generate_request_id}
 * and {@code preserve_external_request_id}.
 */
final class ForwardedHeaders {
  private static final AsciiString X_FORWARDED_FOR = AsciiString.cached("x-forwarded-for");
  private static final AsciiString X_FORWARDED_PROTO = AsciiString.cached("x-forwarded-proto");
  private static final AsciiString X_REQUEST_ID = AsciiString.cached("x-request-id");

  private ForwardedHeaders() {}

  static void apply(RequestHeaders request, HttpConnectionManagerConfig config, String remoteAddress, boolean tls,
      RandomGenerator random) {
    HttpHeaders headers = request.headers();
    if (config.useRemoteAddress()) {
      String xff = headers.get(X_FORWARDED_FOR);
      headers.set(X_FORWARDED_FOR, xff == null ? remoteAddress : xff + "," + remoteAddress);
      headers.set(X_FORWARDED_PROTO, tls ? "https" : "http");
    } else if (!headers.contains(X_FORWARDED_PROTO)) {
      headers.set(X_FORWARDED_PROTO, tls ? "https" : "http");
    }
    if (config.generateRequestId()) {
      boolean keep = headers.contains(X_REQUEST_ID) && (config.preserveExternalRequestId() || !config.useRemoteAddress());
      if (!keep) {
        headers.set(X_REQUEST_ID, requestId(random));
      }
    }
  }

  private static String requestId(RandomGenerator random) {
    long msb = (random.nextLong() & ~0xF000L) | 0x4000L;
    long lsb = (random.nextLong() & 0x3FFFFFFFFFFFFFFFL) | 0x8000000000000000L;
    return new UUID(msb, lsb).toString();
  }
}
