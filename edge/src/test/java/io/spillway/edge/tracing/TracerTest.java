package io.spillway.edge.tracing;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.netty.handler.codec.http.DefaultHttpHeaders;
import io.netty.handler.codec.http.HttpHeaders;
import io.spillway.edge.config.Route;
import io.spillway.edge.config.TracingConfig;
import io.spillway.edge.http.filter.ActiveSpan;
import io.spillway.edge.http.filter.ResponseFlag;
import io.spillway.edge.http.filter.StreamInfo;
import io.spillway.edge.http.message.RequestHeaders;
import io.spillway.edge.runtime.RuntimeSnapshot;
import io.spillway.edge.stats.Scope;
import io.spillway.edge.stats.StatsStore;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.SplittableRandom;
import org.junit.jupiter.api.Test;

/**
 * The tracer without sockets: Envoy's sampling decision on x-request-id, contexts continued or
 * started, what goes upstream, span names and tags, and the Zipkin v2 JSON of a report.
 */
class TracerTest {

  /** A v4 UUID whose first 8 hex digits are 0x00000063 = 99: sampled below 1 %, i.e. 100 per ten thousand. */
  private static final String REQUEST_ID = "00000063-1111-4222-8333-444455556666";

  private final StatsStore store = new StatsStore();
  private final Scope scope = store.rootScope().scope("http").scope("ingress");
  private final List<RequestSpan> reported = new ArrayList<>();
  private final SplittableRandom random = new SplittableRandom(7);

  private static TracingConfig config(int random, boolean shared, boolean spawn, List<TracingConfig.CustomTag> tags) {
    return new TracingConfig(TracingConfig.ALL, random, TracingConfig.ALL, 10, tags, spawn,
        new TracingConfig.Zipkin("zipkin", "/api/v2/spans", "zipkin", false, shared), TracingConfig.OperationName.INGRESS);
  }

  private static TracingConfig egress(TracingConfig c) {
    return new TracingConfig(c.clientSampling(), c.randomSampling(), c.overallSampling(), c.maxPathTagLength(),
        c.customTags(), c.spawnUpstreamSpan(), c.provider(), TracingConfig.OperationName.EGRESS);
  }

  private Tracer tracer(TracingConfig config, boolean useRemoteAddress) {
    return new Tracer(config, "edge-1", "zone-a", reported::add, scope, () -> RuntimeSnapshot.EMPTY,
        useRemoteAddress, Map.of("TEAM", "platform")::get);
  }

  private Tracer tracer(TracingConfig config) {
    return tracer(config, false);
  }

  private static RequestHeaders request(String... nameValues) {
    HttpHeaders h = new DefaultHttpHeaders();
    h.set("x-request-id", REQUEST_ID);
    h.set("x-forwarded-proto", "http");
    for (int i = 0; i < nameValues.length; i += 2) {
      h.set(nameValues[i], nameValues[i + 1]);
    }
    return new RequestHeaders("GET", "http", "shop.example", "/cart/items?page=2", h);
  }

  private static StreamInfo info() {
    return new StreamInfo(System.nanoTime(), 1_700_000_000_000_000_000L, "10.1.2.3", false);
  }

  private long counter(String name) {
    return ((io.spillway.edge.stats.Counter) store.find("http.ingress.tracing." + name).orElseThrow()).value();
  }

  @Test
  void aRequestWithoutContextStartsANewSampledTrace() {
    RequestHeaders r = request();
    RequestSpan span = tracer(config(TracingConfig.ALL, true, false, List.of())).startDownstream(r, info(), null, random);
    assertThat(span.parentId()).isZero();
    assertThat(span.traceIdHigh()).isZero();
    assertThat(span.traceIdLow()).isEqualTo(span.id());
    assertThat(span.sampled()).isTrue();
    assertThat(span.shared()).isFalse();
    assertThat(span.name()).isEqualTo("ingress");
    // Envoy's UUID extension records the reason in the 15th character: 9, sampled.
    assertThat(r.headers().get("x-request-id")).isEqualTo("00000063-1111-9222-8333-444455556666");
    assertThat(counter("random_sampling")).isEqualTo(1);

    HttpHeaders upstream = new DefaultHttpHeaders();
    span.injectContext(upstream);
    assertThat(upstream.get("x-b3-traceid")).isEqualTo(span.traceIdHex());
    assertThat(upstream.get("x-b3-spanid")).isEqualTo(TraceContext.hex16(span.id()));
    assertThat(upstream.contains("x-b3-parentspanid")).isFalse();
    assertThat(upstream.get("x-b3-sampled")).isEqualTo("1");
  }

  @Test
  void samplingPercentagesDecideOnTheRequestId() {
    // 99 mod 10000 = 99: traced at 1 % (100 per ten thousand), not at 0.99 % (99).
    assertThat(tracer(config(100, true, false, List.of())).startDownstream(request(), info(), null, random).sampled())
        .isTrue();
    RequestHeaders r = request();
    RequestSpan notSampled = tracer(config(99, true, false, List.of())).startDownstream(r, info(), null, random);
    assertThat(notSampled.sampled()).isFalse();
    assertThat(r.headers().get("x-request-id")).isEqualTo(REQUEST_ID);
    assertThat(counter("not_traceable")).isEqualTo(1);
    HttpHeaders upstream = new DefaultHttpHeaders();
    notSampled.injectContext(upstream);
    assertThat(upstream.get("x-b3-sampled")).isEqualTo("0");
    tracer(config(99, true, false, List.of())).finishDownstream(notSampled, r, info(), System.nanoTime());
    assertThat(reported).isEmpty();

    // overall_sampling 0 undoes an earlier decision carried in the request id.
    RequestHeaders traced = request("x-request-id", "00000063-1111-9222-8333-444455556666");
    Tracer none = tracer(new TracingConfig(TracingConfig.ALL, TracingConfig.ALL, 0, 256, List.of(), false,
        new TracingConfig.Zipkin("zipkin", "/api/v2/spans", "zipkin", false, true), TracingConfig.OperationName.INGRESS));
    assertThat(none.startDownstream(traced, info(), null, random).sampled()).isFalse();
    assertThat(traced.headers().get("x-request-id")).isEqualTo(REQUEST_ID);
  }

  @Test
  void forcedAndClientTracesAtZeroRandomSampling() {
    RequestHeaders forced = request("x-envoy-force-trace", "true");
    assertThat(tracer(config(0, true, false, List.of())).startDownstream(forced, info(), null, random).sampled())
        .isTrue();
    assertThat(forced.headers().get("x-request-id").charAt(14)).isEqualTo('a');
    assertThat(counter("service_forced")).isEqualTo(1);
    // An external client (use_remote_address) cannot force a trace.
    assertThat(tracer(config(0, true, false, List.of()), true)
        .startDownstream(request("x-envoy-force-trace", "true"), info(), null, random).sampled()).isFalse();
    RequestHeaders client = request("x-client-trace-id", "abc");
    assertThat(tracer(config(0, true, false, List.of())).startDownstream(client, info(), null, random).sampled())
        .isTrue();
    assertThat(client.headers().get("x-request-id").charAt(14)).isEqualTo('b');
    assertThat(counter("client_enabled")).isEqualTo(1);
  }

  @Test
  void anIncomingB3ContextIsContinuedAndItsSampledFlagHonoured() {
    RequestHeaders r = request("x-b3-traceid", "463ac35c9f6413ad", "x-b3-spanid", "a2fb4a1d1a96d312",
        "x-b3-parentspanid", "0020000000000001", "x-b3-sampled", "1");
    // Sampled by the caller even at 0 % random sampling.
    RequestSpan shared = tracer(config(0, true, false, List.of())).startDownstream(r, info(), null, random);
    assertThat(shared.sampled()).isTrue();
    assertThat(shared.traceIdHex()).isEqualTo("463ac35c9f6413ad");
    assertThat(shared.id()).isEqualTo(0xa2fb4a1d1a96d312L);
    assertThat(shared.parentId()).isEqualTo(0x0020000000000001L);
    assertThat(shared.shared()).isTrue();

    RequestSpan child = tracer(config(0, false, false, List.of())).startDownstream(
        request("x-b3-traceid", "463ac35c9f6413ad", "x-b3-spanid", "a2fb4a1d1a96d312"), info(), null, random);
    assertThat(child.id()).isNotEqualTo(0xa2fb4a1d1a96d312L);
    assertThat(child.parentId()).isEqualTo(0xa2fb4a1d1a96d312L);
    assertThat(child.shared()).isFalse();
    assertThat(child.sampled()).isFalse(); // no flag from the caller: the local decision, 0 %

    // The caller said not sampled: nothing is reported even at 100 %.
    Tracer all = tracer(config(TracingConfig.ALL, true, false, List.of()));
    RequestHeaders unsampled = request("b3", "463ac35c9f6413ad-a2fb4a1d1a96d312-0");
    RequestSpan s = all.startDownstream(unsampled, info(), null, random);
    assertThat(s.sampled()).isFalse();
    all.finishDownstream(s, unsampled, info(), System.nanoTime());
    assertThat(reported).isEmpty();
  }

  @Test
  void aSingleB3HeaderGoesOnAsMultiHeaders() {
    RequestHeaders r = request("b3", "463ac35c9f6413ad-a2fb4a1d1a96d312-1");
    RequestSpan span = tracer(config(0, false, false, List.of())).startDownstream(r, info(), null, random);
    HttpHeaders upstream = r.headers();
    span.injectContext(upstream);
    assertThat(upstream.contains("b3")).isFalse();
    assertThat(upstream.get("x-b3-traceid")).isEqualTo("463ac35c9f6413ad");
    assertThat(upstream.get("x-b3-parentspanid")).isEqualTo("a2fb4a1d1a96d312");
    assertThat(upstream.get("x-b3-spanid")).isEqualTo(TraceContext.hex16(span.id())).isNotEqualTo("a2fb4a1d1a96d312");
    assertThat(upstream.get("x-b3-sampled")).isEqualTo("1");
  }

  @Test
  void aTraceparentContextGoesOnInTraceparentToo() {
    RequestHeaders r = request("traceparent", "00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01",
        "tracestate", "vendor=1");
    RequestSpan span = tracer(config(0, false, false, List.of())).startDownstream(r, info(), null, random);
    assertThat(span.sampled()).isTrue();
    HttpHeaders upstream = r.headers();
    span.injectContext(upstream);
    String id = TraceContext.hex16(span.id());
    assertThat(upstream.get("traceparent")).isEqualTo("00-0af7651916cd43dd8448eb211c80319c-" + id + "-01");
    assertThat(upstream.get("x-b3-traceid")).isEqualTo("0af7651916cd43dd8448eb211c80319c");
    assertThat(upstream.get("x-b3-parentspanid")).isEqualTo("b7ad6b7169203331");
    assertThat(upstream.get("tracestate")).isEqualTo("vendor=1");
  }

  @Test
  void openTelemetryReadsAndWritesTraceparentOnly() {
    Tracer otel = tracer(new TracingConfig(TracingConfig.ALL, TracingConfig.ALL, TracingConfig.ALL, 256, List.of(),
        false, new TracingConfig.OpenTelemetry(new TracingConfig.OtlpHttp("otel", "/v1/traces",
            java.time.Duration.ofSeconds(1)), "edge"), TracingConfig.OperationName.INGRESS));
    RequestHeaders r = request("traceparent", "00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01",
        "x-b3-traceid", "463ac35c9f6413ad", "x-b3-spanid", "a2fb4a1d1a96d312");
    RequestSpan span = otel.startDownstream(r, info(), null, random);
    assertThat(span.traceIdHex()).isEqualTo("0af7651916cd43dd8448eb211c80319c");
    assertThat(span.parentId()).isEqualTo(0xb7ad6b7169203331L);
    HttpHeaders upstream = new DefaultHttpHeaders();
    span.injectContext(upstream);
    assertThat(upstream.get("traceparent"))
        .isEqualTo("00-0af7651916cd43dd8448eb211c80319c-" + TraceContext.hex16(span.id()) + "-01");
    assertThat(upstream.contains("x-b3-traceid")).isFalse();
    // A malformed traceparent starts a new 128-bit trace, as Envoy's OpenTelemetry tracer does.
    RequestSpan fresh = otel.startDownstream(request("traceparent", "00-zz"), info(), null, random);
    assertThat(fresh.traceIdHex()).hasSize(32);
    assertThat(fresh.parentId()).isZero();
  }

  @Test
  void aMalformedContextIsNotTraced() {
    assertThat(tracer(config(TracingConfig.ALL, true, false, List.of()))
        .startDownstream(request("b3", "not-a-context"), info(), null, random)).isNull();
  }

  @Test
  void theDecoratorNamesTheSpanUnlessTheRequestDoes() {
    Tracer t = tracer(config(TracingConfig.ALL, true, false, List.of()));
    RequestSpan decorated = t.startDownstream(request(), info(), new Route.Decorator("checkout", true), random);
    assertThat(decorated.name()).isEqualTo("checkout");
    HttpHeaders response = new DefaultHttpHeaders();
    t.onResponseHeaders(decorated, response);
    assertThat(response.get("x-envoy-decorator-operation")).isEqualTo("checkout");

    HttpHeaders quiet = new DefaultHttpHeaders();
    t.onResponseHeaders(t.startDownstream(request(), info(), new Route.Decorator("quiet", false), random), quiet);
    assertThat(quiet.contains("x-envoy-decorator-operation")).isFalse();

    RequestHeaders named = request("x-envoy-decorator-operation", "from-caller");
    RequestSpan overridden = t.startDownstream(named, info(), new Route.Decorator("checkout", true), random);
    assertThat(overridden.name()).isEqualTo("from-caller");
    assertThat(named.headers().contains("x-envoy-decorator-operation")).isFalse();
    HttpHeaders none = new DefaultHttpHeaders();
    t.onResponseHeaders(overridden, none);
    assertThat(none.contains("x-envoy-decorator-operation")).isFalse();
  }

  @Test
  void anEgressSpanIsAClientSpanNamedAfterTheHostAndNeverShared() {
    // shared_span_context true: an egress span is still the caller's child, as in Envoy's Zipkin tracer.
    Tracer t = tracer(egress(config(TracingConfig.ALL, true, false, List.of())));
    RequestHeaders r = request("x-b3-traceid", "463ac35c9f6413ad", "x-b3-spanid", "a2fb4a1d1a96d312",
        "x-b3-sampled", "1", "x-envoy-decorator-operation", "from-caller");
    RequestSpan span = t.startDownstream(r, info(), null, random);
    assertThat(span.kind()).isEqualTo(RequestSpan.Kind.CLIENT);
    assertThat(span.name()).isEqualTo("egress shop.example");
    assertThat(span.shared()).isFalse();
    assertThat(span.id()).isNotEqualTo(0xa2fb4a1d1a96d312L);
    assertThat(span.parentId()).isEqualTo(0xa2fb4a1d1a96d312L);
    // The request's operation header is not an egress span's name; it goes on upstream.
    assertThat(r.headers().get("x-envoy-decorator-operation")).isEqualTo("from-caller");
    t.finishDownstream(span, r, info(), System.nanoTime());
    assertThat(reported).containsExactly(span);
    assertThat(span.tag("component")).isEqualTo("proxy");

    // With spawn_upstream_span, each try still gets its own CLIENT child; the egress span is not one of them.
    Tracer spawning = tracer(egress(config(TracingConfig.ALL, true, true, List.of())));
    RequestSpan outbound = spawning.startDownstream(request(), info(), null, random);
    RequestSpan upstreamTry = (RequestSpan) outbound.spawnUpstream("backend");
    assertThat(upstreamTry).isNotSameAs(outbound);
    assertThat(upstreamTry.parentId()).isEqualTo(outbound.id());
    outbound.finishUpstream("127.0.0.1:8080", "HTTP/1.1", 200, 0);
    assertThat(outbound.finished()).isFalse();
    upstreamTry.finishUpstream("127.0.0.1:8080", "HTTP/1.1", 200, 0);
    assertThat(upstreamTry.tag("upstream_cluster")).isEqualTo("backend");

    Tracer ingress = tracer(config(TracingConfig.ALL, true, false, List.of()));
    RequestSpan server = ingress.startDownstream(request("x-b3-traceid", "463ac35c9f6413ad",
        "x-b3-spanid", "a2fb4a1d1a96d312"), info(), null, random);
    assertThat(server.kind()).isEqualTo(RequestSpan.Kind.SERVER);
    assertThat(server.name()).isEqualTo("ingress");
    assertThat(server.id()).isEqualTo(0xa2fb4a1d1a96d312L);
  }

  @Test
  void anEgressDecoratorGoesUpstreamAndTheResponseRenamesTheSpan() {
    Tracer t = tracer(egress(config(TracingConfig.ALL, true, false, List.of())));
    RequestHeaders r = request();
    RequestSpan span = t.startDownstream(r, info(), new Route.Decorator("checkout", true), random);
    assertThat(span.name()).isEqualTo("checkout");
    assertThat(r.headers().get("x-envoy-decorator-operation")).isEqualTo("checkout");
    HttpHeaders response = new DefaultHttpHeaders().set("x-envoy-decorator-operation", "pay");
    t.onResponseHeaders(span, response);
    assertThat(span.name()).isEqualTo("pay");
    assertThat(response.contains("x-envoy-decorator-operation")).isFalse();

    RequestHeaders quiet = request();
    RequestSpan unpropagated = t.startDownstream(quiet, info(), new Route.Decorator("quiet", false), random);
    assertThat(quiet.headers().contains("x-envoy-decorator-operation")).isFalse();
    HttpHeaders empty = new DefaultHttpHeaders().set("x-envoy-decorator-operation", "");
    t.onResponseHeaders(unpropagated, empty);
    assertThat(unpropagated.name()).isEqualTo("quiet");
    assertThat(empty.contains("x-envoy-decorator-operation")).isFalse();
  }

  @Test
  void theDownstreamSpanCarriesEnvoysTags() {
    Tracer t = tracer(config(TracingConfig.ALL, true, false, List.of(
        new TracingConfig.CustomTag("team", TracingConfig.CustomTag.Source.ENVIRONMENT, "TEAM", "none"),
        new TracingConfig.CustomTag("tenant", TracingConfig.CustomTag.Source.REQUEST_HEADER, "x-tenant", "nobody"),
        new TracingConfig.CustomTag("tier", TracingConfig.CustomTag.Source.LITERAL, "gold", ""))));
    RequestHeaders r = request("user-agent", "curl/8", "x-client-trace-id", "c-1");
    StreamInfo info = info();
    RequestSpan span = t.startDownstream(r, info, null, random);
    info.setResponseCode(503);
    info.setResponseFlag(ResponseFlag.UF);
    info.addBytesReceived(12);
    info.addBytesSent(34);
    t.finishDownstream(span, r, info, System.nanoTime());
    assertThat(reported).containsExactly(span);
    assertThat(span.kind()).isEqualTo(RequestSpan.Kind.SERVER);
    assertThat(span.durationMicros()).isPositive();
    Map<String, String> tags = tags(span);
    assertThat(tags).containsEntry("node_id", "edge-1").containsEntry("zone", "zone-a")
        .containsEntry("http.method", "GET")
        .containsEntry("http.url", "http://shop.example/cart/item") // the path cut at max_path_tag_length (10)
        .containsEntry("guid:x-request-id", r.headers().get("x-request-id"))
        .containsEntry("guid:x-client-trace-id", "c-1")
        .containsEntry("downstream_cluster", "-").containsEntry("user_agent", "curl/8")
        .containsEntry("http.protocol", "HTTP/1.1").containsEntry("peer.address", "10.1.2.3")
        .containsEntry("request_size", "12").containsEntry("response_size", "34")
        .containsEntry("component", "proxy").containsEntry("http.status_code", "503")
        .containsEntry("response_flags", "UF").containsEntry("error", "true")
        .containsEntry("team", "platform").containsEntry("tenant", "nobody").containsEntry("tier", "gold");
  }

  @Test
  void eachUpstreamTryGetsAClientSpanWithSpawnUpstreamSpan() {
    Tracer t = tracer(config(TracingConfig.ALL, true, true, List.of()));
    RequestHeaders r = request();
    RequestSpan server = t.startDownstream(r, info(), null, random);
    ActiveSpan first = server.spawnUpstream("backend");
    ActiveSpan second = server.spawnUpstream("backend");
    assertThat(first).isNotSameAs(server).isNotSameAs(second);
    HttpHeaders upstream = new DefaultHttpHeaders();
    first.injectContext(upstream);
    RequestSpan client = (RequestSpan) first;
    assertThat(client.kind()).isEqualTo(RequestSpan.Kind.CLIENT);
    assertThat(client.name()).isEqualTo("router backend egress");
    assertThat(client.parentId()).isEqualTo(server.id());
    assertThat(upstream.get("x-b3-spanid")).isEqualTo(TraceContext.hex16(client.id()));
    assertThat(upstream.get("x-b3-parentspanid")).isEqualTo(TraceContext.hex16(server.id()));
    first.finishUpstream("127.0.0.1:8080", "HTTP/1.1", 200, 0);
    first.finishUpstream("127.0.0.1:8080", "HTTP/1.1", 500, 0); // once only
    assertThat(reported).containsExactly(client);
    assertThat(tags(client)).containsEntry("upstream_address", "127.0.0.1:8080")
        .containsEntry("upstream_cluster", "backend").containsEntry("http.status_code", "200")
        .containsEntry("component", "proxy").doesNotContainKey("error");
    // Without spawn_upstream_span the try carries the request's own span, which a try never ends.
    RequestSpan alone = tracer(config(TracingConfig.ALL, true, false, List.of())).startDownstream(r, info(), null, random);
    assertThat(alone.spawnUpstream("backend")).isSameAs(alone);
    alone.finishUpstream(null, "HTTP/1.1", 0, 0);
    assertThat(alone.finished()).isFalse();
  }

  @Test
  void aReportIsAZipkinV2JsonArray() throws Exception {
    Tracer t = tracer(config(TracingConfig.ALL, true, false, List.of()));
    RequestHeaders r = request("x-b3-traceid", "463ac35c9f6413ad", "x-b3-spanid", "a2fb4a1d1a96d312",
        "x-b3-parentspanid", "0020000000000001");
    StreamInfo info = info();
    RequestSpan span = t.startDownstream(r, info, new Route.Decorator("checkout", true), random);
    info.setResponseCode(200);
    t.finishDownstream(span, r, info, System.nanoTime());
    JsonNode json = new ObjectMapper().readTree(ZipkinReporter.json(List.of(span), "front-proxy"));
    assertThat(json.isArray()).isTrue();
    JsonNode s = json.get(0);
    assertThat(s.get("traceId").asText()).isEqualTo("463ac35c9f6413ad");
    assertThat(s.get("id").asText()).isEqualTo("a2fb4a1d1a96d312");
    assertThat(s.get("parentId").asText()).isEqualTo("0020000000000001");
    assertThat(s.get("kind").asText()).isEqualTo("SERVER");
    assertThat(s.get("name").asText()).isEqualTo("checkout");
    assertThat(s.get("shared").asBoolean()).isTrue();
    assertThat(s.get("timestamp").asLong()).isGreaterThanOrEqualTo(1_700_000_000_000_000L);
    assertThat(s.get("duration").asLong()).isPositive();
    assertThat(s.get("localEndpoint").get("serviceName").asText()).isEqualTo("front-proxy");
    assertThat(s.get("tags").get("http.status_code").asText()).isEqualTo("200");
    assertThat(s.get("tags").has("error")).isFalse();
  }

  @Test
  void theStatusLineOfTheCollectorsAnswer() throws Exception {
    assertThat(ZipkinReporter.statusOf(new java.io.ByteArrayInputStream(
        "HTTP/1.1 202 Accepted\r\n\r\n".getBytes(java.nio.charset.StandardCharsets.US_ASCII)))).isEqualTo(202);
  }

  private static Map<String, String> tags(RequestSpan span) {
    Map<String, String> m = new java.util.LinkedHashMap<>();
    List<String> l = span.tagList();
    for (int i = 0; i < l.size(); i += 2) {
      m.put(l.get(i), l.get(i + 1));
    }
    return m;
  }
}
