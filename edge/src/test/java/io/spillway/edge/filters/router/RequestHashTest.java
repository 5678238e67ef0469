package io.spillway.edge.filters.router;

import static org.assertj.core.api.Assertions.assertThat;

import io.netty.handler.codec.http.DefaultHttpHeadersFactory;
import io.netty.handler.codec.http.HttpHeaders;
import io.spillway.edge.config.Route.HashPolicy;
import io.spillway.edge.http.filter.StreamInfo;
import io.spillway.edge.http.message.RequestHeaders;
import io.spillway.edge.upstream.lb.XxHash64;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import org.junit.jupiter.api.Test;

class RequestHashTest {
  private final List<String> setCookies = new ArrayList<>();
  private final RequestHash.CookieSink sink = (name, value, path, ttl) -> {
    setCookies.add(name + "=" + value + ";" + path + ";" + ttl.toSeconds());
    return XxHash64.hash(value);
  };

  private static RequestHeaders request(String pathAndQuery, String... nameValues) {
    HttpHeaders h = DefaultHttpHeadersFactory.headersFactory().newHeaders();
    for (int i = 0; i < nameValues.length; i += 2) {
      h.add(nameValues[i], nameValues[i + 1]);
    }
    return new RequestHeaders("GET", "http", "example.com", pathAndQuery, h);
  }

  private static StreamInfo info() {
    StreamInfo info = new StreamInfo(0, 0, "10.1.2.3", false);
    info.setDownstreamAddresses(new InetSocketAddress("10.1.2.3", 40000), new InetSocketAddress("127.0.0.1", 10000));
    return info;
  }

  private RequestHash hash(RequestHeaders request, HashPolicy... policies) {
    return RequestHash.of(List.of(policies), request, info(), sink);
  }

  private static long rotl1(long h) {
    return Long.rotateLeft(h, 1);
  }

  @Test
  void headerValueIsHashedWithXxHash64() {
    RequestHash h = hash(request("/", "x-user", "alice"), new HashPolicy.Header("x-user", false));
    assertThat(h.present()).isTrue();
    assertThat(h.value()).isEqualTo(XxHash64.hash("alice"));
    assertThat(hash(request("/"), new HashPolicy.Header("x-user", false)).present()).isFalse();
  }

  @Test
  void severalHeaderValuesHashTheSameInAnyOrder() {
    RequestHash ab = hash(request("/", "x-k", "b", "x-k", "a"), new HashPolicy.Header("x-k", false));
    RequestHash ba = hash(request("/", "x-k", "a", "x-k", "b"), new HashPolicy.Header("x-k", false));
    assertThat(ab.value()).isEqualTo(ba.value()).isEqualTo(XxHash64.hash("ab"));
  }

  @Test
  void pseudoHeadersAndHostAreReadFromTheRequestHead() {
    assertThat(hash(request("/p"), new HashPolicy.Header(":authority", false)).value())
        .isEqualTo(XxHash64.hash("example.com"));
    assertThat(hash(request("/p"), new HashPolicy.Header("host", false)).value())
        .isEqualTo(XxHash64.hash("example.com"));
    assertThat(hash(request("/p?q=1"), new HashPolicy.Header(":path", false)).value())
        .isEqualTo(XxHash64.hash("/p?q=1"));
  }

  @Test
  void combinesAsEnvoyDoes() {
    RequestHeaders r = request("/", "a", "1", "b", "2");
    RequestHash h = hash(r, new HashPolicy.Header("a", false), new HashPolicy.Header("b", false));
    assertThat(h.value()).isEqualTo(rotl1(XxHash64.hash("1")) ^ XxHash64.hash("2"));
    // The same rule twice does not cancel out.
    RequestHash twice = hash(r, new HashPolicy.Header("a", false), new HashPolicy.Header("a", false));
    assertThat(twice.value()).isEqualTo(rotl1(XxHash64.hash("1")) ^ XxHash64.hash("1")).isNotZero();
    // A policy without a value is skipped.
    RequestHash skip = hash(r, new HashPolicy.Header("missing", false), new HashPolicy.Header("b", false));
    assertThat(skip.value()).isEqualTo(XxHash64.hash("2"));
  }

  @Test
  void terminalStopsOnceThereIsAHash() {
    RequestHeaders r = request("/", "a", "1", "b", "2");
    assertThat(hash(r, new HashPolicy.Header("a", true), new HashPolicy.Header("b", false)).value())
        .isEqualTo(XxHash64.hash("1"));
    // A terminal entry without a value does not stop the walk.
    assertThat(hash(r, new HashPolicy.Header("missing", true), new HashPolicy.Header("b", false)).value())
        .isEqualTo(XxHash64.hash("2"));
  }

  @Test
  void cookieValueQuotesDropped() {
    HashPolicy c = new HashPolicy.Cookie("session", Optional.empty(), "", false);
    assertThat(hash(request("/", "cookie", "a=1; session=abc; z=2"), c).value()).isEqualTo(XxHash64.hash("abc"));
    assertThat(hash(request("/", "cookie", "session=\"abc\""), c).value()).isEqualTo(XxHash64.hash("abc"));
    assertThat(hash(request("/", "cookie", "xsession=abc"), c).present()).isFalse();
    assertThat(hash(request("/", "cookie", "session=; a=1"), c).present()).isFalse(); // empty counts as none
    assertThat(hash(request("/", "cookie", "a=1", "cookie", "session=def"), c).value())
        .isEqualTo(XxHash64.hash("def"));
    assertThat(setCookies).isEmpty();
  }

  @Test
  void cookieWithTtlIsGeneratedWhenMissing() {
    HashPolicy c = new HashPolicy.Cookie("session", Optional.of(Duration.ofSeconds(60)), "/app", false);
    RequestHash h = hash(request("/"), c);
    String value = String.format("%016x", XxHash64.hash("10.1.2.3:40000127.0.0.1:10000"));
    assertThat(setCookies).containsExactly("session=" + value + ";/app;60");
    assertThat(h.value()).isEqualTo(XxHash64.hash(value));
    // The next request carries it and maps to the same hash.
    assertThat(hash(request("/", "cookie", "session=\"" + value + "\""), c).value()).isEqualTo(h.value());
    assertThat(setCookies).hasSize(1);
    hash(request("/", "cookie", "session="), c); // an empty cookie is replaced
    assertThat(setCookies).hasSize(2);
  }

  @Test
  void sourceIpAndQueryParameter() {
    assertThat(hash(request("/"), new HashPolicy.SourceIp(false)).value()).isEqualTo(XxHash64.hash("10.1.2.3"));
    HashPolicy q = new HashPolicy.QueryParameter("user", false);
    assertThat(hash(request("/p?a=1&user=bob%20b&user=x"), q).value()).isEqualTo(XxHash64.hash("bob%20b"));
    assertThat(hash(request("/p?username=bob"), q).present()).isFalse();
    assertThat(hash(request("/p"), q).present()).isFalse();
    assertThat(RequestHash.queryParameter("user", "user")).isEmpty();
    assertThat(new String(RequestHash.queryParameter("a=%41&b", "a"), StandardCharsets.ISO_8859_1)).isEqualTo("%41");
    assertThat(RequestHash.queryParameter("a=1&b", "b")).isEmpty();
  }
}
