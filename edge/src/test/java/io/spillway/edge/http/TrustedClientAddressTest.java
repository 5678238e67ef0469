package io.spillway.edge.http;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

/** Envoy's x-forwarded-for rules for the trusted client address (null: the connection's peer). */
class TrustedClientAddressTest {
  private static final String XFF = "203.0.113.5, 198.51.100.7,192.0.2.1";

  @Test
  void withoutUseRemoteAddressTheHopsAfterTheTrustedOnesCount() {
    assertThat(TrustedClientAddress.of(null, 0, false)).isNull();
    assertThat(TrustedClientAddress.of("", 0, false)).isNull();
    assertThat(TrustedClientAddress.of(XFF, 0, false)).isEqualTo("192.0.2.1");
    assertThat(TrustedClientAddress.of(XFF, 1, false)).isEqualTo("198.51.100.7");
    assertThat(TrustedClientAddress.of(XFF, 2, false)).isEqualTo("203.0.113.5");
    assertThat(TrustedClientAddress.of(XFF, 3, false)).as("too few entries").isNull();
  }

  @Test
  void withUseRemoteAddressNoTrustedHopMeansThePeer() {
    assertThat(TrustedClientAddress.of(XFF, 0, true)).isNull();
    assertThat(TrustedClientAddress.of(XFF, 1, true)).isEqualTo("192.0.2.1");
    assertThat(TrustedClientAddress.of(XFF, 2, true)).isEqualTo("198.51.100.7");
    assertThat(TrustedClientAddress.of(XFF, 4, true)).isNull();
    assertThat(TrustedClientAddress.of(null, 1, true)).isNull();
  }

  @Test
  void anEntryThatIsNotAnIpLiteralIsNotTrusted() {
    assertThat(TrustedClientAddress.of("nonsense,192.0.2.1", 1, false)).isNull();
    assertThat(TrustedClientAddress.of("192.0.2.1:8080", 0, false)).isNull();
    assertThat(TrustedClientAddress.of(",", 0, false)).isNull();
    assertThat(TrustedClientAddress.of("2001:db8::1,192.0.2.1", 1, false)).isEqualTo("2001:db8::1");
  }
}
