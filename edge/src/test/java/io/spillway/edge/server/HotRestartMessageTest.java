package io.spillway.edge.server;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.charset.StandardCharsets;
import java.time.Duration;
import org.junit.jupiter.api.Test;

class HotRestartMessageTest {

  @Test
  void requestsAreOneLineOfVersionVerbAndArgument() {
    assertThat(new String(HotRestartMessage.passListenSocket("0.0.0.0:10000").encode(), StandardCharsets.US_ASCII))
        .isEqualTo("spillway.hot_restart.1 PASS_LISTEN_SOCKET 0.0.0.0:10000\n");
    assertThat(new String(HotRestartMessage.drain().encode(), StandardCharsets.US_ASCII))
        .isEqualTo("spillway.hot_restart.1 DRAIN\n");
    assertThat(new String(HotRestartMessage.versionRequest().encode(), StandardCharsets.US_ASCII))
        .isEqualTo("spillway.hot_restart.1 VERSION\n");
  }

  @Test
  void decodeReadsWhatEncodeWrites() {
    for (HotRestartMessage m : new HotRestartMessage[] {HotRestartMessage.passListenSocket("[::1]:443"),
        HotRestartMessage.drain(), HotRestartMessage.versionRequest()}) {
      String line = new String(m.encode(), StandardCharsets.US_ASCII);
      assertThat(HotRestartMessage.decode(line.substring(0, line.length() - 1))).isEqualTo(m);
    }
  }

  @Test
  void decodeKeepsAnotherVersionForTheParentToRefuse() {
    assertThat(HotRestartMessage.decode("spillway.hot_restart.0 DRAIN").version()).isEqualTo("spillway.hot_restart.0");
  }

  @Test
  void malformedRequestsAreRejectedWithTheReason() {
    assertThatThrownBy(() -> HotRestartMessage.decode("v1")).hasMessageContaining("<version> <verb>");
    assertThatThrownBy(() -> HotRestartMessage.decode("v1 FORK")).hasMessageContaining("unknown verb 'FORK'");
    assertThatThrownBy(() -> HotRestartMessage.decode("v1 PASS_LISTEN_SOCKET")).hasMessageContaining("needs an address");
    assertThatThrownBy(() -> HotRestartMessage.decode("v1 DRAIN now")).hasMessageContaining("DRAIN takes no argument");
    assertThatThrownBy(() -> HotRestartMessage.decode("v1 DRAIN\t")).hasMessageContaining("control or non-ASCII");
    assertThatThrownBy(() -> HotRestartMessage.decode("v1 PASS_LISTEN_SOCKET a b")).hasMessageContaining("<version> <verb>");
    assertThatThrownBy(() -> HotRestartMessage.decode("v1 PASS_LISTEN_SOCKET " + "x".repeat(300)))
        .hasMessageContaining("longer than 256");
    assertThatThrownBy(() -> HotRestartMessage.passListenSocket("x".repeat(300)).encode())
        .hasMessageContaining("longer than 256");
  }

  @Test
  void socketsAreNamedFromBaseIdAndEpochInTheAbstractNamespace() {
    HotRestartOptions child = new HotRestartOptions(true, 7, 3, Duration.ofSeconds(900));
    assertThat(child.ownSocket()).isEqualTo("\0spillway_hot_restart_7_3");
    assertThat(child.parentSocket()).isEqualTo("\0spillway_hot_restart_7_2");
    assertThat(HotRestartOptions.printable(child.parentSocket())).isEqualTo("@spillway_hot_restart_7_2");
    assertThat(child.hasParent()).isTrue();
    HotRestartOptions first = new HotRestartOptions(true, 7, 0, Duration.ofSeconds(900));
    assertThat(first.hasParent()).isFalse();
    assertThatThrownBy(first::parentSocket).isInstanceOf(IllegalStateException.class);
    assertThat(new HotRestartOptions(true, 8, 3, Duration.ZERO).ownSocket()).isNotEqualTo(child.ownSocket());
  }

  @Test
  void anEpochAboveZeroNeedsHotRestartOnEpoll() {
    HotRestartOptions child = new HotRestartOptions(true, 0, 1, Duration.ofSeconds(900));
    assertThat(child.usageProblem(Transport.EPOLL)).isNull();
    assertThat(child.usageProblem(Transport.NIO)).contains("needs the epoll transport").contains("not nio");
    assertThat(new HotRestartOptions(false, 0, 1, Duration.ofSeconds(900)).usageProblem(Transport.EPOLL))
        .contains("--disable-hot-restart");
    assertThat(new HotRestartOptions(false, 0, 0, Duration.ofSeconds(900)).usageProblem(Transport.NIO)).isNull();
    assertThat(new HotRestartOptions(true, 0, 0, Duration.ofSeconds(900)).usageProblem(Transport.NIO)).isNull();
    assertThat(new HotRestartOptions(true, -1, 0, Duration.ofSeconds(900)).usageProblem(Transport.EPOLL))
        .contains("--base-id");
    assertThat(new HotRestartOptions(true, 0, -1, Duration.ofSeconds(900)).usageProblem(Transport.EPOLL))
        .contains("--restart-epoch");
  }
}
