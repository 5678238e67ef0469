package io.spillway.edge.http.message;

import static org.assertj.core.api.Assertions.assertThat;

import io.netty.handler.codec.http.HttpHeaderNames;
import io.netty.handler.codec.http.HttpHeaders;
import java.util.Base64;
import java.util.SplittableRandom;
import org.junit.jupiter.api.Test;

class ExtendedConnectTest {

  @Test
  void aWebSocketRequestWithoutAKeyGetsASixteenByteNonceAndTheUpgradeFields() {
    HttpHeaders fields = Http2Fields.newFields().add("sec-websocket-version", "13");
    ExtendedConnect.toUpgrade("websocket", fields, new SplittableRandom(1));

    assertThat(UpgradeHeaders.requested(fields)).isEqualTo("websocket");
    assertThat(Base64.getDecoder().decode(fields.get(HttpHeaderNames.SEC_WEBSOCKET_KEY))).hasSize(16);
    assertThat(fields.get("sec-websocket-version")).isEqualTo("13");
  }

  @Test
  void aKeyTheClientSentAndOtherProtocolsAreLeftAsTheyAre() {
    HttpHeaders sent = Http2Fields.newFields().add(HttpHeaderNames.SEC_WEBSOCKET_KEY, "dGhlIHNhbXBsZSBub25jZQ==");
    ExtendedConnect.toUpgrade("WebSocket", sent, new SplittableRandom(1));
    assertThat(sent.getAll(HttpHeaderNames.SEC_WEBSOCKET_KEY)).containsExactly("dGhlIHNhbXBsZSBub25jZQ==");

    HttpHeaders other = Http2Fields.newFields();
    ExtendedConnect.toUpgrade("connect-udp", other, new SplittableRandom(1));
    assertThat(UpgradeHeaders.requested(other)).isEqualTo("connect-udp");
    assertThat(other.contains(HttpHeaderNames.SEC_WEBSOCKET_KEY)).isFalse();
  }

  @Test
  void theSwitchIsA200WithoutTheHandshakeFieldsAndOtherAnswersStay() {
    HttpHeaders switched = Http2Fields.newFields().add(HttpHeaderNames.UPGRADE, "websocket")
        .add(HttpHeaderNames.CONNECTION, "upgrade").add(HttpHeaderNames.SEC_WEBSOCKET_ACCEPT, "x").add("x-kept", "1");
    assertThat(ExtendedConnect.toConnectResponse(101, switched)).isEqualTo(200);
    assertThat(switched.names()).containsExactly("x-kept");

    HttpHeaders refused = Http2Fields.newFields().add(HttpHeaderNames.SEC_WEBSOCKET_ACCEPT, "x");
    assertThat(ExtendedConnect.toConnectResponse(404, refused)).isEqualTo(404);
    assertThat(refused.contains(HttpHeaderNames.SEC_WEBSOCKET_ACCEPT)).isTrue();
  }
}
