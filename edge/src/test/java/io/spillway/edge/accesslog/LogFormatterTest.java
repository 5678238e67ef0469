package io.spillway.edge.accesslog;

import static org.assertj.core.api.Assertions.assertThat;

import io.netty.handler.codec.http.DefaultHttpHeaders;
import io.netty.handler.codec.http.HttpHeaders;
import io.spillway.edge.config.AccessLogConfig;
import io.spillway.edge.config.AccessLogConfig.FormattedValue;
import io.spillway.edge.config.AccessLogConfig.JsonField;
import io.spillway.edge.config.AccessLogConfig.LiteralValue;
import io.spillway.edge.config.AccessLogConfig.NestedValue;
import io.spillway.edge.config.BootstrapLoader;
import io.spillway.edge.config.ConfigException;
import io.spillway.edge.config.ConfigTranslator;
import io.spillway.edge.http.filter.ResponseFlag;
import io.spillway.edge.http.filter.StreamInfo;
import io.spillway.edge.http.message.RequestHeaders;
import io.spillway.edge.http.message.ResponseHeaders;
import io.spillway.edge.router.RouteTable;
import java.net.InetSocketAddress;
import java.util.List;
import java.util.Map;
import java.util.SplittableRandom;
import org.junit.jupiter.api.Test;

/** Every command operator, with its value and without, in text and JSON formats. */
class LogFormatterTest {

  /** 2024-03-05T06:07:08.123456789Z */
  static final long START_EPOCH_NANOS = 1_709_618_828_123_456_789L;
  static final long T0 = 1_000_000_000L;

  static StreamInfo fullInfo() {
    StreamInfo info = new StreamInfo(T0, START_EPOCH_NANOS, "10.0.0.7", false);
    info.setDownstreamAddresses(new InetSocketAddress("10.0.0.7", 51000), new InetSocketAddress("10.0.0.1", 10000));
    info.setResponseCode(503);
    info.setResponseFlag(ResponseFlag.UH);
    info.setResponseFlag(ResponseFlag.URX);
    info.setResponseCodeDetails("no healthy upstream");
    info.addBytesReceived(12);
    info.addBytesSent(19);
    info.markLastDownstreamRx(T0 + 2_000_000);
    info.markFirstUpstreamRx(T0 + 5_000_000);
    info.markEnd(T0 + 9_000_000);
    return info;
  }

  static RequestHeaders request() {
    HttpHeaders h = new DefaultHttpHeaders();
    h.add("user-agent", "curl/8.0");
    h.add("x-request-id", "0f0e0d0c-1111-4222-8333-444455556666");
    h.add("x-forwarded-for", "10.0.0.7");
    h.add("content-type", "application/grpc");
    return new RequestHeaders("POST", "http", "example.com", "/a/b?x=1", h);
  }

  static ResponseHeaders response() {
    HttpHeaders h = new DefaultHttpHeaders();
    h.add("x-envoy-upstream-service-time", "4");
    h.add("content-type", "text/plain");
    return new ResponseHeaders(503, h);
  }

  static LogInput full() {
    HttpHeaders trailers = new DefaultHttpHeaders();
    trailers.add("grpc-status", "14");
    return new LogInput(fullInfo(), request(), response(), trailers, new SplittableRandom(7));
  }

  static LogInput empty() {
    return new LogInput(new StreamInfo(T0, START_EPOCH_NANOS, "", false), null, null, null, new SplittableRandom(7));
  }

  static String text(String format, LogInput in) throws ConfigException {
    return LogFormatter.compile(AccessLogConfig.textFormat(format, false), Map.of("ZONE", "eu-1")::get, "edge-host")
        .format(in);
  }

  @Test
  void envoysDefaultFormat() throws ConfigException {
    assertThat(text(AccessLogConfig.DEFAULT_FORMAT, full())).isEqualTo(
        "[2024-03-05T06:07:08.123Z] \"POST /a/b?x=1 HTTP/1.1\" 503 UH,URX 12 19 9 4 \"10.0.0.7\" \"curl/8.0\" "
            + "\"0f0e0d0c-1111-4222-8333-444455556666\" \"example.com\" \"-\"\n");
    assertThat(text(AccessLogConfig.DEFAULT_FORMAT, empty())).isEqualTo(
        "[2024-03-05T06:07:08.123Z] \"- - -\" 0 - 0 0 0 - \"-\" \"-\" \"-\" \"-\" \"-\"\n");
  }

  @Test
  void startTimeFormats() throws ConfigException {
    assertThat(text("%START_TIME(%s)%", full())).isEqualTo("1709618828");
    assertThat(text("%START_TIME(%s.%3f)%|%START_TIME(%6f)%|%START_TIME(%9f)%", full()))
        .isEqualTo("1709618828.123|123456|123456789");
    assertThat(text("%START_TIME(%Y/%m/%d %H:%M:%S %z %Z %j %a %b %E6S %T %F)%", full()))
        .isEqualTo("2024/03/05 06:07:08 +0000 UTC 065 Tue Mar 08.123456 06:07:08 2024-03-05");
    assertThat(text("%START_TIME(100%% %e)%", full())).isEqualTo("100%  5");
  }

  @Test
  void oneFormatterFollowsTheClockAcrossSeconds() throws ConfigException {
    LogFormatter f = LogFormatter.compile(AccessLogConfig.textFormat("%START_TIME%|%START_TIME(%s %E3S)%", false),
        k -> null, "h");
    assertThat(f.format(full())).isEqualTo("2024-03-05T06:07:08.123Z|1709618828 08.123");
    LogInput later = new LogInput(new StreamInfo(T0, START_EPOCH_NANOS + 61_500_000_000L, "", false), null, null,
        null, new SplittableRandom(1));
    assertThat(f.format(later)).isEqualTo("2024-03-05T06:08:09.623Z|1709618889 09.623");
    assertThat(f.format(full())).isEqualTo("2024-03-05T06:07:08.123Z|1709618828 08.123");
  }

  @Test
  void headersWithAlternativesAndTruncation() throws ConfigException {
    LogInput in = full();
    assertThat(text("%REQ(:METHOD)% %REQ(:PATH)% %REQ(:AUTHORITY)% %REQ(:SCHEME)%", in))
        .isEqualTo("POST /a/b?x=1 example.com http");
    assertThat(text("%REQ(X-ENVOY-ORIGINAL-PATH?:PATH)%", in)).isEqualTo("/a/b?x=1");
    assertThat(text("%REQ(USER-AGENT):4%", in)).isEqualTo("curl");
    assertThat(text("%REQ(X-MISSING)%|%REQ(X-MISSING?X-ALSO-MISSING)%", in)).isEqualTo("-|-");
    assertThat(text("%REQ_WITHOUT_QUERY(:PATH)%", in)).isEqualTo("/a/b");
    assertThat(text("%RESP(CONTENT-TYPE)% %RESP(:STATUS)% %RESP(X-MISSING)%", in)).isEqualTo("text/plain 503 -");
    assertThat(text("%TRAILER(GRPC-STATUS)% %TRAILER(X-MISSING)%", in)).isEqualTo("14 -");
    assertThat(text("%REQ(USER-AGENT)% %RESP(CONTENT-TYPE)% %TRAILER(GRPC-STATUS)%", empty())).isEqualTo("- - -");
  }

  @Test
  void codesFlagsBytesAndDurations() throws ConfigException {
    assertThat(text("%RESPONSE_CODE% %RESPONSE_CODE_DETAILS% %RESPONSE_FLAGS% %RESPONSE_FLAGS_LONG%", full()))
        .isEqualTo("503 no_healthy_upstream UH,URX NoHealthyUpstream,UpstreamRetryLimitExceeded");
    assertThat(text("%RESPONSE_CODE% %RESPONSE_CODE_DETAILS% %RESPONSE_FLAGS% %RESPONSE_FLAGS_LONG%", empty()))
        .isEqualTo("0 - - -");
    assertThat(text("%BYTES_RECEIVED% %BYTES_SENT% %DURATION% %REQUEST_DURATION% %RESPONSE_DURATION% "
        + "%RESPONSE_TX_DURATION%", full())).isEqualTo("12 19 9 2 5 4");
    assertThat(text("%BYTES_RECEIVED% %BYTES_SENT% %DURATION% %REQUEST_DURATION% %RESPONSE_DURATION% "
        + "%RESPONSE_TX_DURATION%", empty())).isEqualTo("0 0 0 - - -");
  }

  @Test
  void addressesAndProtocol() throws ConfigException {
    String f = "%DOWNSTREAM_REMOTE_ADDRESS% %DOWNSTREAM_REMOTE_ADDRESS_WITHOUT_PORT% %DOWNSTREAM_REMOTE_PORT% "
        + "%DOWNSTREAM_DIRECT_REMOTE_ADDRESS% %DOWNSTREAM_DIRECT_REMOTE_ADDRESS_WITHOUT_PORT% "
        + "%DOWNSTREAM_LOCAL_ADDRESS% %DOWNSTREAM_LOCAL_ADDRESS_WITHOUT_PORT% %DOWNSTREAM_LOCAL_PORT% %PROTOCOL%";
    assertThat(text(f, full())).isEqualTo("10.0.0.7:51000 10.0.0.7 51000 10.0.0.7:51000 10.0.0.7 "
        + "10.0.0.1:10000 10.0.0.1 10000 HTTP/1.1");
    assertThat(text(f, empty())).isEqualTo("- - - - - - - - -");
    StreamInfo v6 = new StreamInfo(T0, START_EPOCH_NANOS, "::1", true);
    v6.setDownstreamAddresses(new InetSocketAddress("::1", 4000), null);
    LogInput in = new LogInput(v6, request(), null, null, new SplittableRandom(1));
    assertThat(text("%DOWNSTREAM_REMOTE_ADDRESS% %DOWNSTREAM_REMOTE_ADDRESS_WITHOUT_PORT% %PROTOCOL%", in))
        .isEqualTo("[0:0:0:0:0:0:0:1]:4000 0:0:0:0:0:0:0:1 HTTP/2");
  }

  @Test
  void upstreamAndRoute() throws ConfigException {
    assertThat(text("%UPSTREAM_HOST% %UPSTREAM_REMOTE_ADDRESS% %UPSTREAM_CLUSTER% %ROUTE_NAME%", empty()))
        .isEqualTo("- - - -");
    var config = ConfigTranslator.translate(BootstrapLoader.parse("""
        static_resources:
          listeners:
          - name: l
            address: {socket_address: {address: 127.0.0.1, port_value: 10000}}
            filter_chains:
            - filters:
              - name: envoy.filters.network.http_connection_manager
                typed_config:
                  "@type": type.googleapis.com/envoy.extensions.filters.network.http_connection_manager.v3.HttpConnectionManager
                  stat_prefix: in
                  http_filters:
                  - name: envoy.filters.http.router
                    typed_config: {"@type": type.googleapis.com/envoy.extensions.filters.http.router.v3.Router}
                  route_config:
                    virtual_hosts:
                    - name: all
                      domains: ["*"]
                      routes:
                      - name: to_backend
                        match: {prefix: "/"}
                        route: {cluster: backend}
          clusters:
          - name: backend
            load_assignment:
              cluster_name: backend
              endpoints: [{lb_endpoints: [{endpoint: {address: {socket_address: {address: 127.0.0.1, port_value: 1}}}}]}]
        """, BootstrapLoader.Format.YAML));
    LogInput in = full();
    in.info().setRoute(RouteTable.compile(config.listeners().get(0).hcm().routeConfig()).match(in.request()));
    assertThat(text("%UPSTREAM_HOST% %UPSTREAM_CLUSTER% %ROUTE_NAME%", in)).isEqualTo("- backend to_backend");
  }

  @Test
  void grpcStatusHostnameEnvironmentFilterStateAndUniqueId() throws ConfigException {
    assertThat(text("%GRPC_STATUS%", full())).isEqualTo("Unavailable");
    assertThat(text("%GRPC_STATUS%", empty())).isEqualTo("-");
    LogInput noTrailers = new LogInput(fullInfo(), request(), response(), null, new SplittableRandom(1));
    assertThat(text("%GRPC_STATUS%", noTrailers)).isEqualTo("Unavailable"); // 503 maps to Unavailable
    assertThat(text("%HOSTNAME% %ENVIRONMENT(ZONE)% %ENVIRONMENT(NOPE)% %FILTER_STATE(some.key)%", full()))
        .isEqualTo("edge-host eu-1 - -");
    String id = text("%UNIQUE_ID%", full());
    assertThat(id).matches("[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}");
    assertThat(text("%UNIQUE_ID%", full())).isEqualTo(id); // the worker's seeded random source decides
  }

  @Test
  void omitEmptyValuesPrintsNothingForAbsentValuesInText() throws ConfigException {
    LogFormatter f = LogFormatter.compile(AccessLogConfig.textFormat("[%REQ(X-MISSING)%]", true), k -> null, "h");
    assertThat(f.format(full())).isEqualTo("[]");
  }

  static AccessLogConfig.JsonFormat json(boolean typed, boolean omit) throws ConfigException {
    return new AccessLogConfig.JsonFormat(List.of(
        new JsonField("code", value("%RESPONSE_CODE%")),
        new JsonField("path", value("%REQ(:PATH)%")),
        new JsonField("ua", value("agent=%REQ(USER-AGENT)% \"quoted\"")),
        new JsonField("missing", value("%REQ(X-MISSING)%")),
        new JsonField("nested", new NestedValue(List.of(new JsonField("bytes", value("%BYTES_SENT%"))))),
        new JsonField("fixed", new LiteralValue("42"))), typed, omit);
  }

  static FormattedValue value(String format) throws ConfigException {
    return new FormattedValue(AccessLogConfig.textFormat(format, false).tokens());
  }

  @Test
  void jsonFormats() throws ConfigException {
    assertThat(LogFormatter.compile(json(true, false), k -> null, "h").format(full())).isEqualTo(
        "{\"code\":503,\"path\":\"/a/b?x=1\",\"ua\":\"agent=curl/8.0 \\\"quoted\\\"\",\"missing\":null,"
            + "\"nested\":{\"bytes\":19},\"fixed\":42}\n");
    assertThat(LogFormatter.compile(json(false, false), k -> null, "h").format(full())).isEqualTo(
        "{\"code\":\"503\",\"path\":\"/a/b?x=1\",\"ua\":\"agent=curl/8.0 \\\"quoted\\\"\",\"missing\":\"-\","
            + "\"nested\":{\"bytes\":\"19\"},\"fixed\":42}\n");
    assertThat(LogFormatter.compile(json(true, true), k -> null, "h").format(full())).isEqualTo(
        "{\"code\":503,\"path\":\"/a/b?x=1\",\"ua\":\"agent=curl/8.0 \\\"quoted\\\"\","
            + "\"nested\":{\"bytes\":19},\"fixed\":42}\n");
  }

  @Test
  void jsonEscapesControlCharacters() throws ConfigException {
    HttpHeaders h = new DefaultHttpHeaders(false);
    h.add("user-agent", "a\tb\u0001\\");
    LogInput in = new LogInput(fullInfo(), new RequestHeaders("GET", "http", "x", "/", h), null, null,
        new SplittableRandom(1));
    var f = new AccessLogConfig.JsonFormat(List.of(new JsonField("ua", value("%REQ(USER-AGENT)%"))), true, false);
    assertThat(LogFormatter.compile(f, k -> null, "h").format(in)).isEqualTo("{\"ua\":\"a\\tb\\u0001\\\\\"}\n");
  }
}
