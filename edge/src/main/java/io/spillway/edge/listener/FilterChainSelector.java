package io.spillway.edge.listener;

import io.spillway.edge.config.FilterChainConfig;
import io.spillway.edge.config.FilterChainMatch;
import io.spillway.edge.config.ListenerConfig;
import java.net.InetAddress;
import java.net.UnknownHostException;
import java.util.ArrayList;
import java.util.List;

/**
 * A listener's filter chains compiled for matching: picks the chain of a new connection by Envoy's
 * precedence — destination port, destination IP (longest prefix), server name (exact, then the
 * longest {@code *.} wildcard), transport protocol, application protocols, source IP (longest
 * prefix), source port. At each step the chains with the most specific match go on and the others
 * drop out; only when none matches do the chains that leave the criterion empty go on, so a
 * connection whose specific chain fails a later step is not given to a less specific one (Envoy's
 * match tree). Nothing here allocates per criterion beyond the candidate lists.
 */
final class FilterChainSelector {

  /** What the listener and its listener filters know about a connection. */
  record Facts(int destinationPort, byte[] destination, String serverName, String transportProtocol,
      List<String> applicationProtocols, byte[] source, int sourcePort) {}

  /** No chain takes the connection. */
  static final int NO_MATCH = -1;

  private record Range(byte[] address, int prefixLength) {
    /** How many bits match, or -1 when {@code a} is outside the range (or of the other family). */
    int matchLength(byte[] a) {
      if (a == null || a.length != address.length) {
        return -1;
      }
      int full = prefixLength / 8;
      for (int i = 0; i < full; i++) {
        if (a[i] != address[i]) {
          return -1;
        }
      }
      int rest = prefixLength % 8;
      if (rest != 0) {
        int mask = (0xFF << (8 - rest)) & 0xFF;
        if ((a[full] & mask) != (address[full] & mask)) {
          return -1;
        }
      }
      return prefixLength;
    }
  }

  private record Compiled(int index, FilterChainMatch match, List<Range> destinations, List<Range> sources) {}

  private final List<Compiled> chains;
  private final int defaultIndex;
  private final boolean needsInspection;

  private FilterChainSelector(List<Compiled> chains, int defaultIndex, boolean needsInspection) {
    this.chains = chains;
    this.defaultIndex = defaultIndex;
    this.needsInspection = needsInspection;
  }

  /** Chains are numbered in configuration order; the default chain, if any, comes last. */
  static FilterChainSelector compile(ListenerConfig config) {
    List<Compiled> compiled = new ArrayList<>();
    boolean inspect = false;
    for (int i = 0; i < config.filterChains().size(); i++) {
      FilterChainConfig c = config.filterChains().get(i);
      compiled.add(new Compiled(i, c.match(), ranges(c.match().prefixRanges()), ranges(c.match().sourcePrefixRanges())));
      inspect |= c.match().needsInspection();
    }
    int defaultIndex = config.defaultFilterChain().isPresent() ? config.filterChains().size() : NO_MATCH;
    return new FilterChainSelector(List.copyOf(compiled), defaultIndex, inspect);
  }

  /** True when some chain matches on what only a listener filter can find out (SNI, ALPN, TLS). */
  boolean needsInspection() {
    return needsInspection;
  }

  /** The index of the connection's chain, the default chain's when no other matches, else {@link #NO_MATCH}. */
  int select(Facts facts) {
    List<Compiled> c = chains;
    c = byPort(c, facts.destinationPort());
    c = byRange(c, facts.destination(), true);
    c = byServerName(c, facts.serverName());
    c = byExact(c, facts.transportProtocol());
    c = byApplicationProtocols(c, facts.applicationProtocols());
    c = byRange(c, facts.source(), false);
    c = bySourcePort(c, facts.sourcePort());
    return c.isEmpty() ? defaultIndex : c.get(0).index();
  }

  private static List<Compiled> byPort(List<Compiled> in, int port) {
    List<Compiled> exact = new ArrayList<>();
    List<Compiled> any = new ArrayList<>();
    for (Compiled c : in) {
      if (c.match().destinationPort() == 0) {
        any.add(c);
      } else if (c.match().destinationPort() == port) {
        exact.add(c);
      }
    }
    return exact.isEmpty() ? any : exact;
  }

  private static List<Compiled> byRange(List<Compiled> in, byte[] address, boolean destination) {
    List<Compiled> best = new ArrayList<>();
    List<Compiled> any = new ArrayList<>();
    int bestLength = -1;
    for (Compiled c : in) {
      List<Range> ranges = destination ? c.destinations() : c.sources();
      if (ranges.isEmpty()) {
        any.add(c);
        continue;
      }
      int length = -1;
      for (Range r : ranges) {
        length = Math.max(length, r.matchLength(address));
      }
      if (length < 0) {
        continue;
      }
      if (length > bestLength) {
        best.clear();
        bestLength = length;
      }
      if (length == bestLength) {
        best.add(c);
      }
    }
    return best.isEmpty() ? any : best;
  }

  private static List<Compiled> byServerName(List<Compiled> in, String serverName) {
    String name = serverName == null ? "" : serverName.toLowerCase(java.util.Locale.ROOT);
    List<Compiled> exact = new ArrayList<>();
    List<Compiled> wildcard = new ArrayList<>();
    List<Compiled> any = new ArrayList<>();
    int bestSuffix = -1;
    for (Compiled c : in) {
      List<String> names = c.match().serverNames();
      if (names.isEmpty()) {
        any.add(c);
        continue;
      }
      if (name.isEmpty()) {
        continue;
      }
      int suffix = -1;
      boolean isExact = false;
      for (String n : names) {
        if (n.equals(name)) {
          isExact = true;
        } else if (n.startsWith("*.") && name.length() > n.length() - 1 && name.endsWith(n.substring(1))) {
          suffix = Math.max(suffix, n.length() - 1);
        }
      }
      if (isExact) {
        exact.add(c);
      } else if (suffix >= 0) {
        if (suffix > bestSuffix) {
          wildcard.clear();
          bestSuffix = suffix;
        }
        if (suffix == bestSuffix) {
          wildcard.add(c);
        }
      }
    }
    if (!exact.isEmpty()) {
      return exact;
    }
    return wildcard.isEmpty() ? any : wildcard;
  }

  private static List<Compiled> byExact(List<Compiled> in, String transportProtocol) {
    List<Compiled> exact = new ArrayList<>();
    List<Compiled> any = new ArrayList<>();
    for (Compiled c : in) {
      String want = c.match().transportProtocol();
      if (want.isEmpty()) {
        any.add(c);
      } else if (want.equals(transportProtocol)) {
        exact.add(c);
      }
    }
    return exact.isEmpty() ? any : exact;
  }

  private static List<Compiled> byApplicationProtocols(List<Compiled> in, List<String> offered) {
    List<Compiled> exact = new ArrayList<>();
    List<Compiled> any = new ArrayList<>();
    for (Compiled c : in) {
      List<String> want = c.match().applicationProtocols();
      if (want.isEmpty()) {
        any.add(c);
        continue;
      }
      for (String p : offered) {
        if (want.contains(p)) {
          exact.add(c);
          break;
        }
      }
    }
    return exact.isEmpty() ? any : exact;
  }

  private static List<Compiled> bySourcePort(List<Compiled> in, int port) {
    List<Compiled> exact = new ArrayList<>();
    List<Compiled> any = new ArrayList<>();
    for (Compiled c : in) {
      if (c.match().sourcePorts().isEmpty()) {
        any.add(c);
      } else if (c.match().sourcePorts().contains(port)) {
        exact.add(c);
      }
    }
    return exact.isEmpty() ? any : exact;
  }

  private static List<Range> ranges(List<FilterChainMatch.CidrRange> ranges) {
    List<Range> result = new ArrayList<>();
    for (FilterChainMatch.CidrRange r : ranges) {
      try {
        // Checked to be an IP literal by the translator: no lookup happens here.
        result.add(new Range(InetAddress.getByName(r.address()).getAddress(), r.prefixLength()));
      } catch (UnknownHostException e) {
        throw new IllegalArgumentException("not an IP literal: " + r.address(), e);
      }
    }
    return List.copyOf(result);
  }
}
