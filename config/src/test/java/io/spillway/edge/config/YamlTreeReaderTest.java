package io.spillway.edge.config;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.fasterxml.jackson.databind.JsonNode;
import io.envoyproxy.envoy.config.bootstrap.v3.Bootstrap;
import io.spillway.edge.config.BootstrapLoader.Format;
import org.junit.jupiter.api.Test;

class YamlTreeReaderTest {

  @Test
  void expandsAnchorsAndAliasesOfMappingsListsAndScalars() throws ConfigException {
    JsonNode tree = YamlTreeReader.read("""
        a: &addr {address: 127.0.0.1, port_value: 80}
        b: *addr
        c: &names [x, y]
        d: *names
        e: &word hello
        f: *word
        """);

    assertThat(tree.get("b")).isEqualTo(tree.get("a"));
    assertThat(tree.get("b")).isNotSameAs(tree.get("a")); // a copy: the normalizer rewrites trees in place
    assertThat(tree.get("d").toString()).isEqualTo("[\"x\",\"y\"]");
    assertThat(tree.get("f").textValue()).isEqualTo("hello");
  }

  @Test
  void leavesOutKeysTaggedIgnoreAndKeepsTheirAnchorsUsable() throws ConfigException {
    Bootstrap b = BootstrapLoader.parse("""
        !ignore shared:
          - &endpoint {address: 127.0.0.1, port_value: 8080}
        node: {id: edge-1}
        admin:
          address: {socket_address: *endpoint}
        """, Format.YAML);

    assertThat(b.getAdmin().getAddress().getSocketAddress().getPortValue()).isEqualTo(8080);
    assertThat(b.getNode().getId()).isEqualTo("edge-1");
  }

  @Test
  void aliasedValuesAreReadByTheFieldTheyLandIn() throws ConfigException {
    Bootstrap b = BootstrapLoader.parse("""
        node: {id: &v 80, cluster: *v}
        admin: {address: {socket_address: {address: 127.0.0.1, port_value: *v}}}
        """, Format.YAML);

    assertThat(b.getNode().getCluster()).isEqualTo("80");
    assertThat(b.getAdmin().getAddress().getSocketAddress().getPortValue()).isEqualTo(80);
  }

  @Test
  void aHexadecimalIntegerIsItsNumberInAnIntegerFieldAndTextInAStringOne() throws ConfigException {
    Bootstrap b = BootstrapLoader.parse("""
        node: {id: 0xEE}
        admin: {address: {socket_address: {address: 127.0.0.1, port_value: 0x1F90}}}
        stats_flush_interval: 5s
        """, Format.YAML);

    assertThat(b.getAdmin().getAddress().getSocketAddress().getPortValue()).isEqualTo(8080);
    assertThat(b.getNode().getId()).isEqualTo("0xEE");
    assertThatThrownBy(() -> BootstrapLoader.parse(
        "admin: {address: {socket_address: {address: 127.0.0.1, port_value: 0x1FFFFFFFF}}}", Format.YAML))
        .isInstanceOf(ConfigException.class)
        .hasMessageContaining("port_value: 8589934591 is out of range [0, 4294967295]");
  }

  @Test
  void rejectsMergeKeysAsEnvoyDoes() {
    assertThatThrownBy(() -> YamlTreeReader.read("""
        base: &base {address: 127.0.0.1}
        other:
          <<: *base
          port_value: 80
        """))
        .isInstanceOf(ConfigException.class)
        .hasMessageStartingWith("invalid YAML at line 3, column 3: merge keys (<<) are not supported");
  }

  @Test
  void boundsAliasExpansionAgainstBillionLaughs() {
    StringBuilder yaml = new StringBuilder("a0: &a0 [lol, lol, lol, lol, lol, lol, lol, lol, lol, lol]\n");
    for (int i = 1; i <= 9; i++) {
      yaml.append("a").append(i).append(": &a").append(i).append(" [");
      for (int j = 0; j < 10; j++) {
        yaml.append(j == 0 ? "" : ", ").append("*a").append(i - 1);
      }
      yaml.append("]\n");
    }

    assertThatThrownBy(() -> YamlTreeReader.read(yaml.toString()))
        .isInstanceOf(ConfigException.class)
        .hasMessageContaining("aliases expand to more than " + YamlTreeReader.MAX_ALIAS_NODES + " nodes");
  }

  @Test
  void aliasesWithinTheBudgetExpandInFull() throws ConfigException {
    // 4 levels of 10: 10^4 scalars plus the lists, within the budget.
    StringBuilder yaml = new StringBuilder("a0: &a0 [x, x, x, x, x, x, x, x, x, x]\n");
    for (int i = 1; i <= 3; i++) {
      yaml.append("a").append(i).append(": &a").append(i).append(" [");
      for (int j = 0; j < 10; j++) {
        yaml.append(j == 0 ? "" : ", ").append("*a").append(i - 1);
      }
      yaml.append("]\n");
    }

    JsonNode tree = YamlTreeReader.read(yaml.toString());

    assertThat(tree.get("a3").get(9).get(9).get(9).get(9).textValue()).isEqualTo("x");
  }

  @Test
  void rejectsAnAliasInsideItsOwnAnchor() {
    assertThatThrownBy(() -> YamlTreeReader.read("a: &loop [1, *loop]\n"))
        .isInstanceOf(ConfigException.class)
        .hasMessageContaining("alias *loop refers to a node that contains it");
  }

  @Test
  void rejectsAnUnknownAlias() {
    assertThatThrownBy(() -> YamlTreeReader.read("a: *nowhere\n"))
        .isInstanceOf(ConfigException.class)
        .hasMessageStartingWith("invalid YAML at line 1")
        .hasMessageContaining("nowhere");
  }

  @Test
  void quotedAndExplicitlyTaggedScalarsStayText() throws ConfigException {
    JsonNode tree = YamlTreeReader.read("a: '80'\nb: !!str 80\nc: 80\nd: ~\ne: true\nf: yes\n");

    assertThat(tree.get("a").isTextual()).isTrue();
    assertThat(tree.get("b").isTextual()).isTrue();
    assertThat(tree.get("c").isNumber()).isTrue();
    assertThat(tree.get("d").isNull()).isTrue();
    assertThat(tree.get("e").isBoolean()).isTrue();
    assertThat(tree.get("f").textValue()).isEqualTo("yes");
  }

  @Test
  void rejectsADuplicateKeyWithBothLines() {
    assertThatThrownBy(() -> YamlTreeReader.read("node: {}\nadmin: {}\nnode: {}\n"))
        .isInstanceOf(ConfigException.class)
        .hasMessage("invalid YAML at line 3, column 1: duplicate key 'node' (first at line 1)");
  }
}
