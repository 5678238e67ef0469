package io.spillway.edge.http.message;

import io.netty.handler.codec.http.HttpHeaderNames;
import io.netty.handler.codec.http.HttpHeaders;
import java.util.Base64;
import java.util.random.RandomGenerator;

/**
 * HTTP/2's extended CONNECT (RFC 8441) in the model's HTTP/1.1 terms, as Envoy does it: a request
 * with {@code :method CONNECT} and {@code :protocol P} is, for the filters, the router and the
 * upstream, a {@code GET} asking to upgrade to {@code P} ({@code Upgrade: P},
 * {@code Connection: upgrade}); the answer that switches (101) goes back to the HTTP/2 client as a
 * 200 (RFC 8441 §5), without the HTTP/1.1 upgrade fields.
 *
 * <p>One step beyond Envoy, as HAProxy does: RFC 8441 §5 drops the WebSocket handshake's
 * {@code Sec-WebSocket-Key} and {@code Sec-WebSocket-Accept}, which an HTTP/1.1 WebSocket server
 * requires (RFC 6455 §4.2.1), so a WebSocket request without a key gets a fresh one for the
 * HTTP/1.1 hop and the server's accept value stays on that hop.
 */
public final class ExtendedConnect {

  /** The method an upgrade carried over extended CONNECT becomes (Envoy: always GET). */
  public static final String METHOD = "GET";

  private static final String WEBSOCKET = "websocket";

  private ExtendedConnect() {}

  /** The request's fields become an upgrade to {@code protocol}. */
  public static void toUpgrade(String protocol, HttpHeaders fields, RandomGenerator random) {
    UpgradeHeaders.restore(fields, protocol);
    if (protocol.equalsIgnoreCase(WEBSOCKET) && !fields.contains(HttpHeaderNames.SEC_WEBSOCKET_KEY)) {
      byte[] nonce = new byte[16];
      random.nextBytes(nonce);
      fields.set(HttpHeaderNames.SEC_WEBSOCKET_KEY, Base64.getEncoder().encodeToString(nonce));
    }
  }

  /**
   * The status an extended CONNECT's client sees for {@code status}: 200 for the switch (101);
   * the fields lose what belongs to the HTTP/1.1 handshake only.
   */
  public static int toConnectResponse(int status, HttpHeaders fields) {
    if (status != 101) {
      return status;
    }
    fields.remove(HttpHeaderNames.SEC_WEBSOCKET_ACCEPT);
    fields.remove(HttpHeaderNames.UPGRADE);
    fields.remove(HttpHeaderNames.CONNECTION);
    return 200;
  }
}
