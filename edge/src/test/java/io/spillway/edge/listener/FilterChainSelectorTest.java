package io.spillway.edge.listener;

import static org.assertj.core.api.Assertions.assertThat;

import io.spillway.edge.config.FilterChainConfig;
import io.spillway.edge.config.FilterChainMatch;
import io.spillway.edge.config.FilterChainMatch.CidrRange;
import io.spillway.edge.config.ListenerConfig;
import io.spillway.edge.config.SocketAddress;
import io.spillway.edge.config.TcpProxyConfig;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import org.junit.jupiter.api.Test;

/** Envoy's filter chain precedence, one criterion at a time. */
class FilterChainSelectorTest {

  private static final byte[] LOCAL = {127, 0, 0, 1};
  private static final byte[] PEER = {10, 1, 2, 3};

  private static FilterChainMatch match(int port, List<CidrRange> dst, List<String> names, String transport,
      List<String> alpn, List<CidrRange> src, List<Integer> srcPorts) {
    return new FilterChainMatch(port, dst, names, transport, alpn, src, srcPorts);
  }

  private static FilterChainMatch names(String... names) {
    return match(0, List.of(), List.of(names), "", List.of(), List.of(), List.of());
  }

  private static FilterChainSelector selector(boolean withDefault, FilterChainMatch... matches) {
    List<FilterChainConfig> chains = new ArrayList<>();
    for (FilterChainMatch m : matches) {
      chains.add(chain(m));
    }
    return FilterChainSelector.compile(new ListenerConfig("l", new SocketAddress("127.0.0.1", 0), 1024, false, chains,
        withDefault ? Optional.of(chain(FilterChainMatch.ANY)) : Optional.empty(), null, List.of(),
        ListenerConfig.Inspection.NONE));
  }

  private static FilterChainConfig chain(FilterChainMatch m) {
    return new FilterChainConfig("", m, Optional.empty(), Optional.of(new TcpProxyConfig("t",
        List.of(new TcpProxyConfig.WeightedCluster("c", 1)), Duration.ZERO, 1, Optional.empty())));
  }

  private static FilterChainSelector.Facts facts(String sni, String transport, List<String> alpn, byte[] src) {
    return new FilterChainSelector.Facts(10000, LOCAL, sni, transport, alpn, src, 5000);
  }

  @Test
  void exactServerNameBeatsTheLongestWildcardWhichBeatsNone() {
    FilterChainSelector s = selector(false, names("*.example.com"), names("api.example.com"),
        names("*.api.example.com"), FilterChainMatch.ANY);

    assertThat(s.select(facts("api.example.com", "tls", List.of(), PEER))).isEqualTo(1);
    assertThat(s.select(facts("v1.api.example.com", "tls", List.of(), PEER))).isEqualTo(2);
    assertThat(s.select(facts("Www.Example.com", "tls", List.of(), PEER))).as("case-insensitive").isEqualTo(0);
    assertThat(s.select(facts("a.b.example.com", "tls", List.of(), PEER))).as("any depth").isEqualTo(0);
    assertThat(s.select(facts("example.com", "tls", List.of(), PEER))).as("a wildcard needs a label").isEqualTo(3);
    assertThat(s.select(facts("", "raw_buffer", List.of(), PEER))).isEqualTo(3);
  }

  @Test
  void noMatchUsesTheDefaultChainOrNothing() {
    assertThat(selector(false, names("a.com")).select(facts("b.com", "tls", List.of(), PEER)))
        .isEqualTo(FilterChainSelector.NO_MATCH);
    assertThat(selector(true, names("a.com")).select(facts("b.com", "tls", List.of(), PEER))).isEqualTo(1);
  }

  @Test
  void aMoreSpecificEarlierCriterionWinsEvenIfALaterOneThenFails() {
    // Envoy's tree: the server name is decided before the transport protocol; the chain for the
    // name requires raw_buffer, so a TLS connection for that name matches nothing.
    FilterChainMatch byName = match(0, List.of(), List.of("a.com"), "raw_buffer", List.of(), List.of(), List.of());
    FilterChainMatch tlsAny = match(0, List.of(), List.of(), "tls", List.of(), List.of(), List.of());
    FilterChainSelector s = selector(false, byName, tlsAny);

    assertThat(s.select(facts("a.com", "tls", List.of(), PEER))).isEqualTo(FilterChainSelector.NO_MATCH);
    assertThat(s.select(facts("b.com", "tls", List.of(), PEER))).isEqualTo(1);
  }

  @Test
  void destinationPortAndPrefixesComeFirstLongestPrefixWins() {
    FilterChainMatch otherPort = match(9999, List.of(), List.of(), "", List.of(), List.of(), List.of());
    FilterChainMatch wide = match(0, List.of(new CidrRange("127.0.0.0", 8)), List.of(), "", List.of(), List.of(),
        List.of());
    FilterChainMatch narrow = match(0, List.of(new CidrRange("127.0.0.1", 32)), List.of(), "", List.of(), List.of(),
        List.of());
    assertThat(selector(false, otherPort, wide, narrow).select(facts("", "raw_buffer", List.of(), PEER))).isEqualTo(2);
    assertThat(selector(false, otherPort, wide).select(facts("", "raw_buffer", List.of(), PEER))).isEqualTo(1);
    FilterChainMatch samePort = match(10000, List.of(), List.of(), "", List.of(), List.of(), List.of());
    assertThat(selector(false, narrow, samePort).select(facts("", "raw_buffer", List.of(), PEER)))
        .as("the port is decided first").isEqualTo(1);
  }

  @Test
  void applicationProtocolsThenSourceRangesThenSourcePorts() {
    FilterChainMatch h2 = match(0, List.of(), List.of(), "", List.of("h2"), List.of(), List.of());
    FilterChainMatch any = FilterChainMatch.ANY;
    FilterChainSelector alpn = selector(false, h2, any);
    assertThat(alpn.select(facts("", "tls", List.of("http/1.1", "h2"), PEER))).isEqualTo(0);
    assertThat(alpn.select(facts("", "tls", List.of("http/1.1"), PEER))).isEqualTo(1);

    FilterChainMatch fromTen = match(0, List.of(), List.of(), "", List.of(), List.of(new CidrRange("10.0.0.0", 8)),
        List.of());
    FilterChainMatch fromTenPort = match(0, List.of(), List.of(), "", List.of(), List.of(new CidrRange("10.0.0.0", 8)),
        List.of(5000));
    FilterChainSelector source = selector(false, fromTen, fromTenPort, any);
    assertThat(source.select(facts("", "raw_buffer", List.of(), PEER))).isEqualTo(1);
    assertThat(source.select(facts("", "raw_buffer", List.of(), new byte[] {11, 0, 0, 1}))).isEqualTo(2);
  }
}
