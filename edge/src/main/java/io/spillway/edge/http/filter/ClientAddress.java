package io.spillway.edge.http.filter;

import io.netty.util.NetUtil;

/**
 * The client address a connection manager trusts (Envoy's rule for {@code xff_num_trusted_hops}),
 * read from {@code x-forwarded-for} as the connection manager left it: with
 * {@code use_remote_address} the peer's address was appended, so the trusted address is the
 * {@code (hops + 1)}-th from the right either way. An address that is missing (too few entries) or
 * not an IP literal falls back to the connection's peer. Envoy's "remote address" of a stream,
 * which the policy rate limits and RBAC's {@code remote_ip} read.
 */
public final class ClientAddress {

  private ClientAddress() {}

  /**
   * @param peer the connection's peer address
   * @param xff the request's {@code x-forwarded-for}, or null
   * @param hops the connection manager's {@code xff_num_trusted_hops}
   */
  public static String trusted(String peer, String xff, int hops) {
    if (xff == null || xff.isEmpty()) {
      return peer;
    }
    int end = xff.length();
    for (int skipped = 0; ; skipped++) {
      int comma = xff.lastIndexOf(',', end - 1);
      if (skipped == hops) {
        String candidate = xff.substring(comma + 1, end).trim();
        return NetUtil.isValidIpV4Address(candidate) || NetUtil.isValidIpV6Address(candidate) ? candidate : peer;
      }
      if (comma < 0) {
        return peer;
      }
      end = comma;
    }
  }
}
