package io.spillway.edge.router;

import static org.assertj.core.api.Assertions.assertThat;

import io.netty.handler.codec.http.DefaultHttpHeadersFactory;
import io.netty.handler.codec.http.HttpHeaders;
import io.spillway.edge.config.Route;
import io.spillway.edge.config.Route.StringMatch;
import io.spillway.edge.http.message.RequestHeaders;
import org.junit.jupiter.api.Test;

/** Header matchers see a repeated header as its values joined with a comma, as Envoy's do. */
class RepeatedHeaderMatchTest {

  private static RequestHeaders request(String... values) {
    HttpHeaders h = DefaultHttpHeadersFactory.headersFactory().newHeaders();
    for (String v : values) {
      h.add("x-role", v);
    }
    return new RequestHeaders("GET", "http", "example.test", "/", h);
  }

  private static Route.HeaderMatch exact(String value) {
    return new Route.HeaderMatch("x-role", new StringMatch.Exact(value, false), false);
  }

  @Test
  void aRepeatedHeaderIsMatchedAsItsJoinedValues() {
    assertThat(RouteMatcher.headerMatches(exact("admin,viewer"), request("admin", "viewer"))).isTrue();
    assertThat(RouteMatcher.headerMatches(exact("admin"), request("admin", "viewer"))).isFalse();
    assertThat(RouteMatcher.headerMatches(exact("admin"), request("admin"))).isTrue();
  }

  @Test
  void anAbsentHeaderIsNull() {
    assertThat(request().headerValues("x-role")).isNull();
    assertThat(request("a", "b").headerValues("x-role")).isEqualTo("a,b");
    assertThat(request("a", "b").header("x-role")).isEqualTo("a");
  }
}
