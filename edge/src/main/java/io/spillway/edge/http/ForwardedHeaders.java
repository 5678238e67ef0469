package io.spillway.edge.http;

import io.netty.handler.codec.http.HttpHeaders;
import io.netty.util.AsciiString;
import io.spillway.edge.config.HttpConnectionManagerConfig;
import io.spillway.edge.http.message.RequestHeaders;
import java.util.UUID;
import java.util.random.RandomGenerator;

/**
 * The connection manager's own changes to a request before any filter sees it (Envoy's
 * {@code ConnectionManagerUtility::mutateRequestHeaders}, the supported part): the trusted client
 * address ({@link TrustedClientAddress}), x-forwarded-for and x-forwarded-proto by
 * {@code use_remote_address} and {@code xff_num_trusted_hops} (a trusted hop's x-forwarded-proto is
 * kept), and x-request-id by {@code generate_request_id} and {@code preserve_external_request_id}.
 */
final class ForwardedHeaders {
  private static final AsciiString X_FORWARDED_FOR = AsciiString.cached("x-forwarded-for");
  private static final AsciiString X_FORWARDED_PROTO = AsciiString.cached("x-forwarded-proto");
  private static final AsciiString X_REQUEST_ID = AsciiString.cached("x-request-id");

  private ForwardedHeaders() {}

  /**
   * Applies the changes and answers the trusted client's IP address, or null when it is the
   * connection's peer ({@code remoteAddress}).
   */
  static String apply(RequestHeaders request, HttpConnectionManagerConfig config, String remoteAddress, boolean tls,
      RandomGenerator random) {
    HttpHeaders headers = request.headers();
    int hops = config.xffNumTrustedHops();
    String xff = headers.get(X_FORWARDED_FOR);
    String trusted = TrustedClientAddress.of(xff, hops, config.useRemoteAddress());
    if (config.useRemoteAddress()) {
      headers.set(X_FORWARDED_FOR, xff == null ? remoteAddress : xff + "," + remoteAddress);
      if (hops == 0 || !headers.contains(X_FORWARDED_PROTO)) {
        headers.set(X_FORWARDED_PROTO, tls ? "https" : "http");
      }
    } else if (!headers.contains(X_FORWARDED_PROTO)) {
      headers.set(X_FORWARDED_PROTO, tls ? "https" : "http");
    }
    if (config.generateRequestId()) {
      boolean keep = headers.contains(X_REQUEST_ID) && (config.preserveExternalRequestId() || !config.useRemoteAddress());
      if (!keep) {
        headers.set(X_REQUEST_ID, requestId(random));
      }
    }
    return trusted;
  }

  private static String requestId(RandomGenerator random) {
    long msb = (random.nextLong() & ~0xF000L) | 0x4000L;
    long lsb = (random.nextLong() & 0x3FFFFFFFFFFFFFFFL) | 0x8000000000000000L;
    return new UUID(msb, lsb).toString();
  }
}
