package io.spillway.edge.admin;

import io.envoyproxy.envoy.config.core.v3.Address;
import io.envoyproxy.envoy.config.core.v3.SocketAddress;
import java.net.Inet6Address;
import java.net.InetSocketAddress;
import java.util.Arrays;

/**
 * Socket addresses as Envoy's admin output writes them: {@code ip:port}, {@code [ip]:port} for IPv6
 * with the address in its RFC 5952 short form ({@code [::1]:443}), or as a proto.
 */
final class EnvoyAddresses {
  private EnvoyAddresses() {}

  static String text(InetSocketAddress address) {
    String ip = ip(address);
    return ip.indexOf(':') >= 0 ? "[" + ip + "]:" + address.getPort() : ip + ":" + address.getPort();
  }

  static Address proto(InetSocketAddress address) {
    return Address.newBuilder()
        .setSocketAddress(SocketAddress.newBuilder().setAddress(ip(address)).setPortValue(address.getPort()))
        .build();
  }

  private static String ip(InetSocketAddress address) {
    if (address.getAddress() == null) {
      return address.getHostString();
    }
    String ip = address.getAddress().getHostAddress();
    return address.getAddress() instanceof Inet6Address ? shortIpv6(ip) : ip;
  }

  /** Replaces the longest run of two or more zero groups (the first, on a tie) with {@code ::}. */
  static String shortIpv6(String full) {
    int percent = full.indexOf('%');
    String scope = percent >= 0 ? full.substring(percent) : "";
    String[] groups = (percent >= 0 ? full.substring(0, percent) : full).split(":");
    int bestStart = -1;
    int bestLength = 1;
    for (int i = 0; i < groups.length; ) {
      if (!groups[i].equals("0")) {
        i++;
        continue;
      }
      int j = i;
      while (j < groups.length && groups[j].equals("0")) {
        j++;
      }
      if (j - i > bestLength) {
        bestStart = i;
        bestLength = j - i;
      }
      i = j;
    }
    if (bestStart < 0) {
      return String.join(":", groups) + scope;
    }
    String head = String.join(":", Arrays.copyOfRange(groups, 0, bestStart));
    String tail = String.join(":", Arrays.copyOfRange(groups, bestStart + bestLength, groups.length));
    return head + "::" + tail + scope;
  }
}
