package io.spillway.central.console;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.spillway.central.api.ApiException;
import io.spillway.central.api.Reply;
import io.spillway.central.api.Router;
import java.util.Arrays;
import java.util.List;
import org.junit.jupiter.api.Test;

class ConsoleApiTest {

  private final ConsoleApi api = new ConsoleApi(ConsoleFiles.shipped());

  @Test
  void aFileIsAnsweredWithItsMediaTypeAndTheSecurityHeaders() {
    Reply reply = api.reply("app.js");
    assertThat(reply.status()).isEqualTo(200);
    Router.RawBody body = (Router.RawBody) reply.body();
    assertThat(body.contentType()).isEqualTo("text/javascript; charset=utf-8");
    assertThat(body.bytes()).isEqualTo(ConsoleFiles.shipped().file("app.js").orElseThrow().bytes());
    assertThat(reply.headers()).containsAllEntriesOf(ConsoleApi.SECURITY_HEADERS)
        .containsEntry("Content-Security-Policy", ConsoleApi.CONTENT_SECURITY_POLICY)
        .containsEntry("X-Frame-Options", "DENY")
        .containsEntry("Referrer-Policy", "no-referrer");
  }

  @Test
  void theContentSecurityPolicyAllowsOnlyCentralsOwnOriginAndNoInlineCode() {
    List<String> directives = Arrays.stream(ConsoleApi.CONTENT_SECURITY_POLICY.split(";")).map(String::trim).toList();
    assertThat(directives).contains("default-src 'self'", "script-src 'self'", "style-src 'self'", "connect-src 'self'",
        "img-src 'self'", "font-src 'self'", "object-src 'none'", "base-uri 'none'", "frame-ancestors 'none'",
        "require-trusted-types-for 'script'");
    // Every source list names only 'self' or 'none': no host, scheme, nonce, hash or unsafe keyword.
    for (String directive : directives) {
      String[] parts = directive.split(" ");
      if (parts[0].endsWith("-src") || parts[0].equals("base-uri") || parts[0].equals("form-action") || parts[0].equals("frame-ancestors")) {
        assertThat(Arrays.copyOfRange(parts, 1, parts.length)).as(directive).containsAnyOf("'self'", "'none'").hasSize(1);
      }
    }
    assertThat(ConsoleApi.CONTENT_SECURITY_POLICY).doesNotContain("unsafe", "http:", "https:", "data:", "*");
  }

  @Test
  void anUnknownFileIs404() {
    assertThatThrownBy(() -> api.reply("nothing-here.js")).isInstanceOfSatisfying(ApiException.class,
        e -> assertThat(e.status()).isEqualTo(404));
    assertThatThrownBy(() -> api.reply("../openapi.yaml")).isInstanceOfSatisfying(ApiException.class,
        e -> assertThat(e.status()).isEqualTo(404));
  }
}
