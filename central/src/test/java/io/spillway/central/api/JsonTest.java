package io.spillway.central.api;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.charset.StandardCharsets;
import org.junit.jupiter.api.Test;

/** Request bodies: one well-formed JSON document, each key once per object. */
class JsonTest {

  private final Json json = new Json();

  private static byte[] bytes(String s) {
    return s.getBytes(StandardCharsets.UTF_8);
  }

  @Test
  void aKeyGivenTwiceInOneObjectIsRefusedNotResolvedToTheLastOne() {
    assertThatThrownBy(() -> json.parse(bytes("{\"overload\": {\"inbound\": {\"mode\": \"off\", \"mode\": \"enforce\"}}}")))
        .isInstanceOfSatisfying(ApiException.class, e -> {
          assertThat(e.status()).isEqualTo(400);
          assertThat(e.getMessage()).contains("Duplicate field 'mode'");
        });
  }

  @Test
  void theSameKeyInTwoObjectsIsFine() {
    assertThat(json.parse(bytes("{\"a\": {\"mode\": 1}, \"b\": {\"mode\": 2}}")).path("b").path("mode").asInt())
        .isEqualTo(2);
  }

  @Test
  void trailingTokensAreRefused() {
    assertThatThrownBy(() -> json.parse(bytes("{} {}")))
        .isInstanceOfSatisfying(ApiException.class, e -> assertThat(e.status()).isEqualTo(400));
  }
}
