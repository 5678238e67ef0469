package io.spillway.edge.admin;

import static org.assertj.core.api.Assertions.assertThat;

import java.net.InetAddress;
import java.net.InetSocketAddress;
import org.junit.jupiter.api.Test;

class EnvoyAddressesTest {

  @Test
  void ipv4IsIpColonPort() throws Exception {
    InetSocketAddress a = new InetSocketAddress(InetAddress.getByName("10.0.0.1"), 80);

    assertThat(EnvoyAddresses.text(a)).isEqualTo("10.0.0.1:80");
    assertThat(EnvoyAddresses.proto(a).getSocketAddress().getAddress()).isEqualTo("10.0.0.1");
    assertThat(EnvoyAddresses.proto(a).getSocketAddress().getPortValue()).isEqualTo(80);
  }

  @Test
  void ipv6IsBracketed() throws Exception {
    assertThat(EnvoyAddresses.text(new InetSocketAddress(InetAddress.getByName("::1"), 443)))
        .isEqualTo("[::1]:443");
    assertThat(EnvoyAddresses.text(new InetSocketAddress(InetAddress.getByName("::"), 80))).isEqualTo("[::]:80");
    assertThat(EnvoyAddresses.proto(new InetSocketAddress(InetAddress.getByName("2001:db8:0:0:1:0:0:1"), 80))
        .getSocketAddress().getAddress()).isEqualTo("2001:db8::1:0:0:1");
    assertThat(EnvoyAddresses.shortIpv6("fe80:0:0:0:0:0:0:1%eth0")).isEqualTo("fe80::1%eth0");
    assertThat(EnvoyAddresses.shortIpv6("1:0:2:0:3:0:4:0")).isEqualTo("1:0:2:0:3:0:4:0");
    assertThat(EnvoyAddresses.text(InetSocketAddress.createUnresolved("::", 10000))).isEqualTo("[::]:10000");
  }
}
