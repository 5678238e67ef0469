package io.spillway.edge.filters.csrf;

import static org.assertj.core.api.Assertions.assertThat;

import io.netty.handler.codec.http.DefaultHttpHeadersFactory;
import io.netty.handler.codec.http.HttpHeaders;
import io.spillway.edge.config.CsrfConfig;
import io.spillway.edge.config.HeaderMutations;
import io.spillway.edge.config.RetryPolicy;
import io.spillway.edge.config.Route;
import io.spillway.edge.config.Route.StringMatch;
import io.spillway.edge.config.RuntimeFraction;
import io.spillway.edge.http.filter.DecoderFilter;
import io.spillway.edge.http.filter.EncoderFilter;
import io.spillway.edge.http.filter.FilterChainBuilder;
import io.spillway.edge.http.filter.FilterHeadersStatus;
import io.spillway.edge.http.filter.RecordingStream;
import io.spillway.edge.http.filter.StreamInfo;
import io.spillway.edge.http.message.RequestHeaders;
import io.spillway.edge.router.RouteEntry;
import io.spillway.edge.runtime.RuntimeSnapshot;
import io.spillway.edge.stats.Counter;
import io.spillway.edge.stats.StatsStore;
import io.spillway.edge.upstream.Worker;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.SplittableRandom;
import org.junit.jupiter.api.Test;

/**
 * The CSRF filter through a fake stream: Envoy's mutating methods, the source origin from Origin
 * or else Referer, the comparison with the request's host, additional origins, shadow mode, the
 * route's own policy, runtime overrides, the 403 and the three counters.
 */
class CsrfFilterTest {

  private static final String NAME = "envoy.filters.http.csrf";
  private static final CsrfConfig ENFORCED = new CsrfConfig(RuntimeFraction.ALWAYS, RuntimeFraction.NEVER, List.of());

  private final StatsStore stats = new StatsStore();
  private Map<String, String> runtimeValues = Map.of();
  private final Worker worker = new Worker(0, null, new SplittableRandom(3), null, null, null);

  /** The project's recording stream, with a worker for the filter's random draws. */
  private static final class Stream extends RecordingStream {
    final Worker worker;

    Stream(Worker worker, RouteEntry route, RequestHeaders request) {
      super(route, request, new StreamInfo(0, "127.0.0.1", false));
      this.worker = worker;
    }

    @Override
    public Worker worker() {
      return worker;
    }
  }

  private CsrfFactory factory(CsrfConfig policy) {
    return new CsrfFactory(NAME, policy, stats.rootScope().scope("http").scope("ingress"),
        () -> new RuntimeSnapshot(List.of("admin"), List.of(runtimeValues)));
  }

  private static RouteEntry route(Map<String, Object> filterConfigs) {
    Route route = new Route("r", new Route.Match(new Route.PathMatch.Prefix("/"), true, List.of(), List.of()),
        new Route.RouteAction(List.of(new Route.WeightedCluster("backend", 1)), Optional.empty(), Optional.empty(),
            Optional.empty(), false, Duration.ofSeconds(15), Optional.empty(), RetryPolicy.NONE),
        HeaderMutations.NONE, HeaderMutations.NONE, Map.of(), Set.of(), Map.of(), Route.RateLimits.NONE,
        Optional.empty());
    return new RouteEntry(route, "vh", List.of(), List.of(), RetryPolicy.NONE, new int[0], filterConfigs);
  }

  private static RequestHeaders request(String method, String host, String... nameValues) {
    HttpHeaders h = DefaultHttpHeadersFactory.headersFactory().newHeaders();
    for (int i = 0; i < nameValues.length; i += 2) {
      h.add(nameValues[i], nameValues[i + 1]);
    }
    return new RequestHeaders(method, "http", host, "/", h);
  }

  private Stream send(CsrfFactory factory, RouteEntry route, RequestHeaders request) {
    DecoderFilter[] made = new DecoderFilter[1];
    factory.createFilters(new FilterChainBuilder() {
      @Override
      public void addDecoderFilter(DecoderFilter filter) {
        made[0] = filter;
      }

      @Override
      public void addEncoderFilter(EncoderFilter filter) {
        throw new AssertionError("the CSRF filter only decodes");
      }
    });
    Stream stream = new Stream(worker, route, request);
    made[0].setDecoderFilterCallbacks(stream);
    FilterHeadersStatus status = made[0].decodeHeaders(request, false);
    assertThat(status).isEqualTo(stream.replyStatus == 0 ? FilterHeadersStatus.CONTINUE
        : FilterHeadersStatus.STOP_ITERATION);
    return stream;
  }

  private Stream send(CsrfConfig policy, RequestHeaders request) {
    return send(factory(policy), null, request);
  }

  private long counter(String name) {
    return stats.find("http.ingress.csrf." + name).map(s -> ((Counter) s).value()).orElse(0L);
  }

  @Test
  void aCrossOriginPostIsRefusedWithEnvoysReplyAndDetails() {
    Stream s = send(ENFORCED, request("POST", "api.example", "origin", "https://evil.example"));
    assertThat(s.replyStatus).isEqualTo(403);
    assertThat(s.replyBody).isEqualTo("Invalid origin");
    assertThat(s.info.responseCodeDetails()).isEqualTo("csrf_origin_mismatch");
    assertThat(counter("request_invalid")).isEqualTo(1);
    assertThat(counter("missing_source_origin")).isZero();
    assertThat(counter("request_valid")).isZero();
  }

  @Test
  void theOriginsHostAndPortMustEqualTheHostExactly() {
    assertThat(send(ENFORCED, request("POST", "api.example", "origin", "https://api.example")).replyStatus).isZero();
    assertThat(send(ENFORCED, request("PUT", "api.example:8443", "origin", "https://api.example:8443/"))
        .replyStatus).isZero();
    assertThat(send(ENFORCED, request("PATCH", "api.example", "origin", "https://user@api.example")).replyStatus)
        .isZero();
    assertThat(counter("request_valid")).isEqualTo(3);
    // A port the host does not name, and another case, differ: Envoy compares the strings.
    assertThat(send(ENFORCED, request("DELETE", "api.example", "origin", "https://api.example:443")).replyStatus)
        .isEqualTo(403);
    assertThat(send(ENFORCED, request("POST", "api.example", "origin", "https://API.example")).replyStatus)
        .isEqualTo(403);
    assertThat(counter("request_invalid")).isEqualTo(2);
  }

  @Test
  void onlyEnvoysMutatingMethodsAreChecked() {
    for (String method : List.of("GET", "HEAD", "OPTIONS", "TRACE", "CONNECT", "PROPFIND")) {
      assertThat(send(ENFORCED, request(method, "api.example", "origin", "https://evil.example")).replyStatus)
          .as(method).isZero();
    }
    assertThat(counter("request_invalid") + counter("request_valid")).isZero();
  }

  @Test
  void withoutOriginTheRefererCountsAndWithoutEitherTheRequestIsInvalid() {
    assertThat(send(ENFORCED, request("POST", "api.example", "referer", "https://api.example/page?q=1"))
        .replyStatus).isZero();
    assertThat(send(ENFORCED, request("POST", "api.example", "origin", "", "referer", "https://evil.example/x"))
        .replyStatus).isEqualTo(403);
    Stream none = send(ENFORCED, request("POST", "api.example"));
    assertThat(none.replyStatus).isEqualTo(403);
    assertThat(counter("missing_source_origin")).isEqualTo(1);
    assertThat(counter("request_invalid")).isEqualTo(2);
    assertThat(counter("request_valid")).isEqualTo(1);
    // "null" is no URL: it is compared as it is, and differs from any host.
    assertThat(send(ENFORCED, request("POST", "api.example", "origin", "null")).replyStatus).isEqualTo(403);
  }

  @Test
  void additionalOriginsAreMatchedAgainstTheSourceHost() {
    CsrfConfig policy = new CsrfConfig(RuntimeFraction.ALWAYS, RuntimeFraction.NEVER,
        List.of(new StringMatch.Suffix(".partner.example", false)));
    assertThat(send(policy, request("POST", "api.example", "origin", "https://app.partner.example")).replyStatus)
        .isZero();
    assertThat(send(policy, request("POST", "api.example", "origin", "https://partner.example.evil")).replyStatus)
        .isEqualTo(403);
  }

  @Test
  void shadowModeCountsAndLetsTheRequestThrough() {
    CsrfConfig shadow = new CsrfConfig(RuntimeFraction.NEVER, RuntimeFraction.ALWAYS, List.of());
    assertThat(send(shadow, request("POST", "api.example", "origin", "https://evil.example")).replyStatus).isZero();
    assertThat(counter("request_invalid")).isEqualTo(1);
    CsrfConfig off = new CsrfConfig(RuntimeFraction.NEVER, RuntimeFraction.NEVER, List.of());
    assertThat(send(off, request("POST", "api.example", "origin", "https://evil.example")).replyStatus).isZero();
    assertThat(counter("request_invalid")).isEqualTo(1);
  }

  @Test
  void theRoutesPolicyReplacesTheFilters() {
    CsrfFactory factory = factory(ENFORCED);
    CsrfConfig shadowOnly = new CsrfConfig(RuntimeFraction.NEVER, RuntimeFraction.ALWAYS, List.of());
    RequestHeaders evil = request("POST", "api.example", "origin", "https://evil.example");
    assertThat(send(factory, route(Map.of(NAME, shadowOnly)), evil).replyStatus).isZero();
    assertThat(send(factory, route(Map.of()), evil).replyStatus).isEqualTo(403);
  }

  @Test
  void theRuntimeKeyOverridesTheDefault() {
    CsrfConfig keyed = new CsrfConfig(new RuntimeFraction("csrf.enabled", RuntimeFraction.MILLION),
        RuntimeFraction.NEVER, List.of());
    runtimeValues = Map.of("csrf.enabled", "0");
    assertThat(send(keyed, request("POST", "api.example", "origin", "https://evil.example")).replyStatus).isZero();
    runtimeValues = Map.of();
    assertThat(send(keyed, request("POST", "api.example", "origin", "https://evil.example")).replyStatus)
        .isEqualTo(403);
  }

  @Test
  void hostAndPortFollowsEnvoysUrlRule() {
    assertThat(CsrfFilter.hostAndPort("https://a.example:8080/p?q#f")).isEqualTo("a.example:8080");
    assertThat(CsrfFilter.hostAndPort("a.example")).isEqualTo("a.example");
    assertThat(CsrfFilter.hostAndPort("https://")).isEqualTo("https://");
    assertThat(CsrfFilter.hostAndPort("1ab://x")).isEqualTo("1ab://x");
    assertThat(CsrfFilter.hostAndPort(null)).isEmpty();
  }
}
