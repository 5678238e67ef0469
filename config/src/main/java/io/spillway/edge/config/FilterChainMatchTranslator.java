package io.spillway.edge.config;

import io.envoyproxy.envoy.config.core.v3.CidrRange;
import io.envoyproxy.envoy.config.listener.v3.FilterChainMatch.ConnectionSourceType;
import java.net.InetAddress;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;

/**
 * A filter chain's {@code filter_chain_match} → {@link FilterChainMatch}: {@code destination_port},
 * {@code prefix_ranges}, {@code server_names} (exact or a leading {@code *.} wildcard, as Envoy),
 * {@code transport_protocol}, {@code application_protocols}, {@code source_prefix_ranges} and
 * {@code source_ports}. {@code direct_source_prefix_ranges}, {@code source_type} other than ANY and
 * the deprecated {@code address_suffix}/{@code suffix_len} are refused with their path.
 */
final class FilterChainMatchTranslator {

  private static final SupportedFields MATCH = SupportedFields.of(
      io.envoyproxy.envoy.config.listener.v3.FilterChainMatch.getDescriptor(),
      "destination_port", "prefix_ranges", "server_names", "transport_protocol", "application_protocols",
      "source_prefix_ranges", "source_ports", "source_type");
  private static final SupportedFields CIDR = SupportedFields.of(CidrRange.getDescriptor(),
      "address_prefix", "prefix_len");

  private FilterChainMatchTranslator() {}

  static FilterChainMatch translate(io.envoyproxy.envoy.config.listener.v3.FilterChainMatch m, FieldPath path)
      throws ConfigException {
    MATCH.check(m, path);
    if (m.getSourceType() != ConnectionSourceType.ANY) {
      throw new ConfigException(path.field("source_type"), m.getSourceType() + " is not supported (ANY)");
    }
    int port = 0;
    if (m.hasDestinationPort()) {
      port = ProtoValues.port(m.getDestinationPort().getValue(), path.field("destination_port"), 1);
    }
    List<String> names = new ArrayList<>();
    for (int i = 0; i < m.getServerNamesCount(); i++) {
      names.add(serverName(m.getServerNames(i), path.field("server_names").index(i)));
    }
    for (int i = 0; i < m.getApplicationProtocolsCount(); i++) {
      if (m.getApplicationProtocols(i).isEmpty()) {
        throw new ConfigException(path.field("application_protocols").index(i), "must not be empty");
      }
    }
    List<Integer> sourcePorts = new ArrayList<>();
    for (int i = 0; i < m.getSourcePortsCount(); i++) {
      sourcePorts.add(ProtoValues.port(m.getSourcePorts(i), path.field("source_ports").index(i), 1));
    }
    return new FilterChainMatch(port, ranges(m.getPrefixRangesList(), path.field("prefix_ranges")), names,
        m.getTransportProtocol(), m.getApplicationProtocolsList(),
        ranges(m.getSourcePrefixRangesList(), path.field("source_prefix_ranges")), sourcePorts);
  }

  /** An exact host name or {@code *.suffix}; Envoy matches names case-insensitively. */
  private static String serverName(String name, FieldPath path) throws ConfigException {
    String lower = name.toLowerCase(Locale.ROOT);
    if (lower.isEmpty()) {
      throw new ConfigException(path, "must not be empty");
    }
    String host = lower.startsWith("*.") ? lower.substring(2) : lower;
    if (host.isEmpty() || host.contains("*")) {
      throw new ConfigException(path, "\"" + name + "\" is not a host name or a leading \"*.\" wildcard");
    }
    return lower;
  }

  private static List<FilterChainMatch.CidrRange> ranges(List<CidrRange> ranges, FieldPath path)
      throws ConfigException {
    List<FilterChainMatch.CidrRange> result = new ArrayList<>();
    for (int i = 0; i < ranges.size(); i++) {
      FieldPath at = path.index(i);
      CidrRange r = ranges.get(i);
      CIDR.check(r, at);
      String literal = r.getAddressPrefix();
      byte[] bytes = ipLiteral(literal, at.field("address_prefix"));
      int bits = bytes.length * 8;
      int len = r.hasPrefixLen() ? r.getPrefixLen().getValue() : bits;
      if (len > bits) {
        throw new ConfigException(at.field("prefix_len"), "must be at most " + bits + " for " + literal);
      }
      result.add(new FilterChainMatch.CidrRange(literal, len));
    }
    return result;
  }

  /** The bytes of an IPv4 or IPv6 literal; host names are refused (no lookup is made). */
  static byte[] ipLiteral(String literal, FieldPath path) throws ConfigException {
    boolean ipv4 = literal.matches("[0-9]{1,3}(\\.[0-9]{1,3}){3}");
    boolean ipv6 = literal.contains(":") && literal.matches("[0-9a-fA-F:.]+");
    if (!ipv4 && !ipv6) {
      throw new ConfigException(path, "\"" + literal + "\" is not an IP address");
    }
    if (ipv4) {
      byte[] b = new byte[4];
      String[] parts = literal.split("\\.");
      for (int i = 0; i < 4; i++) {
        int v = Integer.parseInt(parts[i]);
        if (v > 255) {
          throw new ConfigException(path, "\"" + literal + "\" is not an IP address");
        }
        b[i] = (byte) v;
      }
      return b;
    }
    try {
      // An IPv6 literal: parsed, never looked up.
      return InetAddress.getByName(literal).getAddress();
    } catch (java.net.UnknownHostException e) {
      throw new ConfigException(path, "\"" + literal + "\" is not an IP address");
    }
  }
}
