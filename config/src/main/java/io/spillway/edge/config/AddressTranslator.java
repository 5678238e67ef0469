package io.spillway.edge.config;

import io.envoyproxy.envoy.config.core.v3.Address;

/** Envoy's {@code Address} → {@link SocketAddress}: a TCP socket address with a numeric port. */
final class AddressTranslator {

  private static final SupportedFields ADDRESS = SupportedFields.of(Address.getDescriptor(), "socket_address");
  private static final SupportedFields SOCKET_ADDRESS = SupportedFields.of(
      io.envoyproxy.envoy.config.core.v3.SocketAddress.getDescriptor(), "protocol", "address", "port_value");

  /** What the host of an address may be. */
  enum HostKind {
    /** An IP literal, as listeners, the admin listener and STATIC clusters need. */
    IP_LITERAL,
    /** An IP literal or a DNS name, as STRICT_DNS clusters take. */
    IP_OR_NAME
  }

  private AddressTranslator() {}

  /**
   * Translates {@code address} at {@code path}.
   *
   * @param hostKind what the host may be
   * @param why appended to the error when an IP literal was required and a name was given
   * @param minPort 0 where the OS may choose the port (listeners), 1 where a peer is dialled
   */
  static SocketAddress translate(Address address, FieldPath path, HostKind hostKind, String why, int minPort)
      throws ConfigException {
    return translate(address, path, hostKind, why, minPort, false);
  }

  /**
   * Translates the address of a peer that datagrams are sent to (a stats sink): {@code protocol}
   * may be {@code UDP} as well as the default {@code TCP}, which Envoy's UDP sinks ignore alike;
   * the port must not be 0.
   */
  static SocketAddress translateDatagram(Address address, FieldPath path, HostKind hostKind, String why)
      throws ConfigException {
    return translate(address, path, hostKind, why, 1, true);
  }

  private static SocketAddress translate(Address address, FieldPath path, HostKind hostKind, String why, int minPort,
      boolean udpAllowed) throws ConfigException {
    ADDRESS.check(address, path);
    FieldPath socketPath = path.field("socket_address");
    if (!address.hasSocketAddress()) {
      throw new ConfigException(socketPath, "socket_address is required");
    }
    io.envoyproxy.envoy.config.core.v3.SocketAddress socket = address.getSocketAddress();
    SOCKET_ADDRESS.check(socket, socketPath);
    if (socket.getProtocol() != io.envoyproxy.envoy.config.core.v3.SocketAddress.Protocol.TCP
        && !(udpAllowed && socket.getProtocol() == io.envoyproxy.envoy.config.core.v3.SocketAddress.Protocol.UDP)) {
      throw new ConfigException(socketPath.field("protocol"), socket.getProtocol() + " is not supported");
    }
    String host = socket.getAddress().trim();
    FieldPath hostPath = socketPath.field("address");
    if (host.isEmpty()) {
      throw new ConfigException(hostPath, "address is required");
    }
    boolean ip = isIpv4(host) || isIpv6(host);
    if (!ip) {
      if (hostKind == HostKind.IP_LITERAL) {
        throw new ConfigException(hostPath, "\"" + host + "\" is not an IP address" + why);
      }
      if (!isDnsName(host)) {
        throw new ConfigException(hostPath, "\"" + host + "\" is neither an IP address nor a DNS name");
      }
    }
    if (socket.getPortSpecifierCase()
        != io.envoyproxy.envoy.config.core.v3.SocketAddress.PortSpecifierCase.PORT_VALUE && minPort > 0) {
      throw new ConfigException(socketPath.field("port_value"), "port_value is required");
    }
    int port = ProtoValues.port(socket.getPortValue(), socketPath.field("port_value"), minPort);
    return new SocketAddress(host, port);
  }

  /** A dotted-quad IPv4 literal, as inet_pton reads it (no leading zeros). */
  static boolean isIpv4(String s) {
    String[] parts = s.split("\\.", -1);
    if (parts.length != 4) {
      return false;
    }
    for (String part : parts) {
      if (part.isEmpty() || part.length() > 3 || (part.length() > 1 && part.charAt(0) == '0')) {
        return false;
      }
      for (int i = 0; i < part.length(); i++) {
        if (part.charAt(i) < '0' || part.charAt(i) > '9') {
          return false;
        }
      }
      if (Integer.parseInt(part) > 255) {
        return false;
      }
    }
    return true;
  }

  /** An RFC 4291 IPv6 literal without brackets or zone: eight groups, one "::" at most, an IPv4 tail allowed. */
  static boolean isIpv6(String s) {
    int gap = s.indexOf("::");
    if (s.isEmpty() || (gap >= 0 && s.indexOf("::", gap + 1) >= 0)) {
      return false;
    }
    String head = gap >= 0 ? s.substring(0, gap) : s;
    String tail = gap >= 0 ? s.substring(gap + 2) : "";
    java.util.List<String> groups = new java.util.ArrayList<>();
    if (!head.isEmpty()) {
      groups.addAll(java.util.List.of(head.split(":", -1)));
    }
    if (!tail.isEmpty()) {
      groups.addAll(java.util.List.of(tail.split(":", -1)));
    }
    boolean ipv4TailAllowed = gap < 0 || !tail.isEmpty();
    int count = 0;
    for (int i = 0; i < groups.size(); i++) {
      String group = groups.get(i);
      if (i == groups.size() - 1 && ipv4TailAllowed && group.indexOf('.') >= 0) {
        if (!isIpv4(group)) {
          return false;
        }
        count += 2;
        continue;
      }
      if (group.isEmpty() || group.length() > 4) {
        return false;
      }
      for (int c = 0; c < group.length(); c++) {
        if (Character.digit(group.charAt(c), 16) < 0) {
          return false;
        }
      }
      count++;
    }
    return gap >= 0 ? count <= 7 : count == 8;
  }

  private static boolean isDnsName(String host) {
    if (host.length() > 253) {
      return false;
    }
    String[] labels = host.split("\\.", -1);
    for (int l = 0; l < labels.length; l++) {
      String label = labels[l];
      if (label.isEmpty()) {
        if (l > 0 && l == labels.length - 1) {
          continue; // a fully qualified name's trailing dot
        }
        return false;
      }
      if (label.length() > 63 || label.startsWith("-") || label.endsWith("-")) {
        return false;
      }
      for (int i = 0; i < label.length(); i++) {
        char c = label.charAt(i);
        if (!(Character.isLetterOrDigit(c) && c < 128) && c != '-' && c != '_') {
          return false;
        }
      }
    }
    return true;
  }
}
