package io.spillway.edge.accesslog;

import static org.assertj.core.api.Assertions.assertThat;

import io.netty.handler.codec.http.DefaultHttpHeaders;
import io.netty.handler.codec.http.HttpHeaders;
import io.spillway.edge.config.AccessLogConfig;
import io.spillway.edge.config.AccessLogConfig.Op;
import io.spillway.edge.config.Route;
import io.spillway.edge.http.filter.ResponseFlag;
import io.spillway.edge.http.filter.StreamInfo;
import io.spillway.edge.http.message.RequestHeaders;
import io.spillway.edge.http.message.ResponseHeaders;
import java.util.List;
import java.util.Set;
import java.util.SplittableRandom;
import org.junit.jupiter.api.Test;

/** Each access log filter kind, on both sides of its condition. */
class LogFilterTest {

  static LogInput stream(int code, long durationMs, String requestId, HttpHeaders trailers, ResponseFlag... flags) {
    StreamInfo info = new StreamInfo(1_000, 0, "10.0.0.1", false);
    info.setResponseCode(code);
    for (ResponseFlag f : flags) {
      info.setResponseFlag(f);
    }
    info.markEnd(1_000 + durationMs * 1_000_000);
    HttpHeaders h = new DefaultHttpHeaders();
    if (requestId != null) {
      h.add("x-request-id", requestId);
    }
    h.add("x-tenant", "blue");
    return new LogInput(info, new RequestHeaders("GET", "http", "example.com", "/", h),
        code == 0 ? null : new ResponseHeaders(code, new DefaultHttpHeaders()), trailers, new SplittableRandom(3));
  }

  static boolean eval(AccessLogConfig.Filter f, LogInput in) {
    return LogFilter.compile(f).evaluate(in);
  }

  @Test
  void statusCodeAndDurationComparisons() {
    assertThat(eval(new AccessLogConfig.StatusCodeFilter(Op.GE, 500), stream(503, 1, null, null))).isTrue();
    assertThat(eval(new AccessLogConfig.StatusCodeFilter(Op.GE, 500), stream(404, 1, null, null))).isFalse();
    assertThat(eval(new AccessLogConfig.StatusCodeFilter(Op.EQ, 404), stream(404, 1, null, null))).isTrue();
    assertThat(eval(new AccessLogConfig.StatusCodeFilter(Op.LE, 299), stream(200, 1, null, null))).isTrue();
    assertThat(eval(new AccessLogConfig.StatusCodeFilter(Op.LE, 299), stream(300, 1, null, null))).isFalse();
    assertThat(eval(new AccessLogConfig.DurationFilter(Op.GE, 100), stream(200, 150, null, null))).isTrue();
    assertThat(eval(new AccessLogConfig.DurationFilter(Op.GE, 100), stream(200, 99, null, null))).isFalse();
  }

  @Test
  void runtimeKeysOverrideComparisonValuesAndSamplingFractions() {
    io.spillway.edge.runtime.RuntimeSnapshot runtime = new io.spillway.edge.runtime.RuntimeSnapshot(List.of("s"),
        List.of(java.util.Map.of("log.min_status", "400", "log.slow_ms", "not-a-number", "log.sample", "11")));
    java.util.function.Predicate<Object[]> eval = args -> LogFilter.compile((AccessLogConfig.Filter) args[0],
        () -> runtime).evaluate((LogInput) args[1]);

    assertThat(eval.test(new Object[] {new AccessLogConfig.StatusCodeFilter(Op.GE, 500, "log.min_status"),
        stream(404, 1, null, null)})).isTrue();
    assertThat(eval.test(new Object[] {new AccessLogConfig.StatusCodeFilter(Op.GE, 500, "absent"),
        stream(404, 1, null, null)})).isFalse();
    // Not a whole number: the default value.
    assertThat(eval.test(new Object[] {new AccessLogConfig.DurationFilter(Op.GE, 100, "log.slow_ms"),
        stream(200, 99, null, null)})).isFalse();
    // 0x0000000a % 100 = 10: the runtime's 11 % samples it, the default 10 % would not.
    LogInput in = stream(200, 1, "0000000a-0000-4000-8000-000000000000", null);
    assertThat(eval.test(new Object[] {new AccessLogConfig.RuntimeFilter("log.sample", 10, 100, false), in})).isTrue();
    assertThat(eval.test(new Object[] {new AccessLogConfig.RuntimeFilter("absent", 10, 100, false), in})).isFalse();
  }

  @Test
  void healthCheckAndTraceable() {
    assertThat(eval(new AccessLogConfig.NotHealthCheckFilter(), stream(200, 1, null, null))).isTrue();
    LogInput healthCheck = stream(200, 1, null, null);
    healthCheck.info().setHealthCheck(); // what the health check filter does
    assertThat(eval(new AccessLogConfig.NotHealthCheckFilter(), healthCheck)).isFalse();
    assertThat(eval(new AccessLogConfig.TraceableFilter(), stream(200, 1, null, null))).isFalse();
  }

  @Test
  void runtimeFilterSamplesByRequestIdOrAtRandom() {
    // 0x0000000a % 100 = 10: sampled at 11%, not at 10%.
    LogInput in = stream(200, 1, "0000000a-0000-4000-8000-000000000000", null);
    assertThat(eval(new AccessLogConfig.RuntimeFilter(11, 100, false), in)).isTrue();
    assertThat(eval(new AccessLogConfig.RuntimeFilter(10, 100, false), in)).isFalse();
    assertThat(eval(new AccessLogConfig.RuntimeFilter(0, 100, true), in)).isFalse();
    assertThat(eval(new AccessLogConfig.RuntimeFilter(100, 100, true), in)).isTrue();
    int sampled = 0;
    LogFilter half = LogFilter.compile(new AccessLogConfig.RuntimeFilter(5_000, 10_000, true));
    for (int i = 0; i < 1_000; i++) {
      sampled += half.evaluate(in) ? 1 : 0;
    }
    assertThat(sampled).isBetween(400, 600);
  }

  @Test
  void andOrAndHeaders() {
    var blue = new AccessLogConfig.HeaderFilter(new Route.HeaderMatch("x-tenant",
        new Route.StringMatch.Exact("blue", false), false));
    var notBlue = new AccessLogConfig.HeaderFilter(new Route.HeaderMatch("x-tenant",
        new Route.StringMatch.Exact("blue", false), true));
    var errors = new AccessLogConfig.StatusCodeFilter(Op.GE, 500);
    LogInput ok = stream(200, 1, null, null);
    assertThat(eval(blue, ok)).isTrue();
    assertThat(eval(notBlue, ok)).isFalse();
    assertThat(eval(new AccessLogConfig.AndFilter(List.of(blue, errors)), ok)).isFalse();
    assertThat(eval(new AccessLogConfig.OrFilter(List.of(blue, errors)), ok)).isTrue();
    assertThat(eval(new AccessLogConfig.OrFilter(List.of(notBlue, errors)), ok)).isFalse();
    assertThat(eval(new AccessLogConfig.AndFilter(List.of(blue, errors)), stream(502, 1, null, null))).isTrue();
  }

  @Test
  void responseFlags() {
    var any = new AccessLogConfig.ResponseFlagFilter(Set.of());
    var uhOrUf = new AccessLogConfig.ResponseFlagFilter(Set.of("UH", "UF"));
    var rateLimited = new AccessLogConfig.ResponseFlagFilter(Set.of("RL")); // Envoy's, never set by the edge
    assertThat(eval(any, stream(200, 1, null, null))).isFalse();
    assertThat(eval(any, stream(503, 1, null, null, ResponseFlag.UO))).isTrue();
    assertThat(eval(uhOrUf, stream(503, 1, null, null, ResponseFlag.UF))).isTrue();
    assertThat(eval(uhOrUf, stream(503, 1, null, null, ResponseFlag.UO))).isFalse();
    assertThat(eval(rateLimited, stream(429, 1, null, null, ResponseFlag.UO))).isFalse();
    assertThat(eval(new AccessLogConfig.ResponseFlagFilter(Set.of("AR")), stream(503, 1, null, null,
        ResponseFlag.AR))).isTrue();
  }

  @Test
  void grpcStatus() {
    HttpHeaders trailers = new DefaultHttpHeaders();
    trailers.add("grpc-status", "5");
    var notFound = new AccessLogConfig.GrpcStatusFilter(Set.of(5), false);
    var notOk = new AccessLogConfig.GrpcStatusFilter(Set.of(0), true);
    assertThat(eval(notFound, stream(200, 1, null, trailers))).isTrue();
    assertThat(eval(notOk, stream(200, 1, null, trailers))).isTrue();
    // No grpc-status: the HTTP status decides (503 -> Unavailable, 14); 200 maps to Unknown (2).
    assertThat(eval(new AccessLogConfig.GrpcStatusFilter(Set.of(14), false), stream(503, 1, null, null))).isTrue();
    assertThat(eval(new AccessLogConfig.GrpcStatusFilter(Set.of(2), false), stream(200, 1, null, null))).isTrue();
    assertThat(eval(notFound, stream(200, 1, null, null))).isFalse();
  }
}
