package io.spillway.edge.http;

import io.netty.util.NetUtil;

/**
 * The client address a connection manager trusts, by Envoy's rules for {@code use_remote_address}
 * and {@code xff_num_trusted_hops} (its "final remote address"): with {@code use_remote_address}
 * and N trusted hops, the N-th address from the right of {@code x-forwarded-for} as it arrived
 * (none when N is 0); without it, the (N+1)-th from the right. An entry that is missing (too few)
 * or not an IP literal means the connection's peer. Filters that key on the client (rate limit
 * {@code remote_address}, the policy's client-address limits, hash policies, ext_authz's source,
 * the access log's {@code %DOWNSTREAM_REMOTE_ADDRESS%}) read this address; the peer itself stays
 * available as the direct remote address.
 */
public final class TrustedClientAddress {

  private TrustedClientAddress() {}

  /**
   * @param xff {@code x-forwarded-for} as the request arrived, or null
   * @return the trusted client's IP address, or null when it is the connection's peer
   */
  public static String of(String xff, int trustedHops, boolean useRemoteAddress) {
    if (useRemoteAddress) {
      return trustedHops == 0 ? null : fromTheRight(xff, trustedHops - 1);
    }
    return fromTheRight(xff, trustedHops);
  }

  /** Envoy's {@code getLastAddressFromXFF}: the entry {@code skip} places from the right, if an IP literal. */
  static String fromTheRight(String xff, int skip) {
    if (xff == null || xff.isEmpty()) {
      return null;
    }
    int end = xff.length();
    for (int skipped = 0; ; skipped++) {
      int comma = xff.lastIndexOf(',', end - 1);
      if (skipped == skip) {
        String candidate = xff.substring(comma + 1, end).trim();
        return NetUtil.isValidIpV4Address(candidate) || NetUtil.isValidIpV6Address(candidate) ? candidate : null;
      }
      if (comma < 0) {
        return null;
      }
      end = comma;
    }
  }
}
