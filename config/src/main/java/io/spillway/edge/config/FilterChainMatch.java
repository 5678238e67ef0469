package io.spillway.edge.config;

import java.util.List;

/**
 * A filter chain's {@code filter_chain_match}, reduced to the criteria Spillway matches on. Empty
 * values match anything; Envoy's precedence among chains (destination port, destination IP,
 * server name, transport protocol, application protocols, source IP, source port) is applied by
 * the listener's compiled selector, not here.
 *
 * @param destinationPort the connection's local port, 0 = any
 * @param prefixRanges the connection's local address, in one of these ranges
 * @param serverNames SNI names, each exact ({@code a.example.com}) or a wildcard ({@code *.example.com}), lower-cased
 * @param transportProtocol {@code tls}, {@code raw_buffer}, or empty for any
 * @param applicationProtocols one of the ALPN protocols the client offers
 * @param sourcePrefixRanges the peer's address, in one of these ranges
 * @param sourcePorts the peer's port, one of these
 */
public record FilterChainMatch(
    int destinationPort,
    List<CidrRange> prefixRanges,
    List<String> serverNames,
    String transportProtocol,
    List<String> applicationProtocols,
    List<CidrRange> sourcePrefixRanges,
    List<Integer> sourcePorts) {

  /** Matches every connection. */
  public static final FilterChainMatch ANY =
      new FilterChainMatch(0, List.of(), List.of(), "", List.of(), List.of(), List.of());

  public FilterChainMatch {
    prefixRanges = List.copyOf(prefixRanges);
    serverNames = List.copyOf(serverNames);
    applicationProtocols = List.copyOf(applicationProtocols);
    sourcePrefixRanges = List.copyOf(sourcePrefixRanges);
    sourcePorts = List.copyOf(sourcePorts);
  }

  /** True when the criterion can only be known after a listener filter inspected the connection. */
  public boolean needsInspection() {
    return !serverNames.isEmpty() || !applicationProtocols.isEmpty() || transportProtocol.equals("tls");
  }

  /**
   * An address range: {@code address} (an IP literal, already checked) and how many leading bits
   * must be equal.
   */
  public record CidrRange(String address, int prefixLength) {}
}
