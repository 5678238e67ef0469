package io.spillway.edge.http.message;

import io.netty.handler.codec.http.HttpHeaderNames;
import io.netty.handler.codec.http.HttpHeaderValues;
import io.netty.handler.codec.http.HttpHeaders;

/**
 * HTTP/1.1 protocol upgrades (RFC 9110 §7.8): a message asks to switch protocols when it has an
 * {@code Upgrade} field and its {@code Connection} field lists the {@code upgrade} option. Both are
 * hop-by-hop, so {@link HopByHop#strip} removes them; an upgrade that the proxy carries through
 * puts them back with {@link #restore}. A CONNECT request (RFC 9110 §9.3.6) is the upgrade type
 * {@link #CONNECT}, as Envoy treats it.
 */
public final class UpgradeHeaders {

  /** The upgrade type of a CONNECT request ({@code upgrade_configs} compare types case-insensitively). */
  public static final String CONNECT = "connect";

  private UpgradeHeaders() {}

  /**
   * Whether an answer with {@code status} to a request that asked for {@code upgrade} turns the
   * stream into a tunnel: 101 for an HTTP/1.1 upgrade, any 2xx for CONNECT (RFC 9110 §9.3.6).
   */
  public static boolean opensTunnel(String upgrade, int status) {
    return upgrade != null && (CONNECT.equals(upgrade) ? status / 100 == 2 : status == 101);
  }

  /** The {@code Upgrade} value of a message that asks to switch protocols, or null when it does not ask. */
  public static String requested(HttpHeaders headers) {
    String upgrade = headers.get(HttpHeaderNames.UPGRADE);
    if (upgrade == null || upgrade.isBlank()) {
      return null;
    }
    for (String connection : headers.getAll(HttpHeaderNames.CONNECTION)) {
      for (String token : connection.split(",")) {
        if (token.trim().equalsIgnoreCase("upgrade")) {
          return upgrade.trim();
        }
      }
    }
    return null;
  }

  /** {@code Upgrade: <upgrade>} and {@code Connection: upgrade}, after the hop-by-hop fields were stripped. */
  public static void restore(HttpHeaders headers, String upgrade) {
    headers.set(HttpHeaderNames.UPGRADE, upgrade);
    headers.set(HttpHeaderNames.CONNECTION, HttpHeaderValues.UPGRADE);
  }
}
