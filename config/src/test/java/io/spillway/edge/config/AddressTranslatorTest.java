package io.spillway.edge.config;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

class AddressTranslatorTest {

  @ParameterizedTest
  @ValueSource(strings = {"0.0.0.0", "127.0.0.1", "255.255.255.255", "10.0.0.10"})
  void acceptsIpv4Literals(String ip) {
    assertThat(AddressTranslator.isIpv4(ip)).isTrue();
  }

  @ParameterizedTest
  @ValueSource(strings = {"", "1.2.3", "1.2.3.4.5", "256.0.0.1", "01.2.3.4", "1.2.3.x", "1..3.4", "localhost"})
  void rejectsWhatIsNotAnIpv4Literal(String ip) {
    assertThat(AddressTranslator.isIpv4(ip)).isFalse();
  }

  @ParameterizedTest
  @ValueSource(strings = {"::", "::1", "1::", "fe80::1", "2001:db8:0:0:0:0:2:1", "2001:DB8::8:800:200C:417A",
      "::ffff:10.0.0.1", "1:2:3:4:5:6:1.2.3.4", "1:2:3:4:5:6:7::"})
  void acceptsIpv6Literals(String ip) {
    assertThat(AddressTranslator.isIpv6(ip)).isTrue();
  }

  @ParameterizedTest
  @ValueSource(strings = {"", ":", ":1", "1:", "1:::2", "1::2::3", "1:2:3:4:5:6:7:8:9", "1:2:3:4:5:6:7", "12345::",
      "g::1", "1.2.3.4::", "::1.2.3", "[::1]", "fe80::1%eth0", "example.com"})
  void rejectsWhatIsNotAnIpv6Literal(String ip) {
    assertThat(AddressTranslator.isIpv6(ip)).isFalse();
  }
}
