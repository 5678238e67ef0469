package io.spillway.bench;

import io.netty.handler.codec.http.DefaultHttpHeaders;
import io.netty.handler.codec.http.HttpHeaders;
import io.spillway.edge.accesslog.AccessLogManager;
import io.spillway.edge.accesslog.AccessLogs;
import io.spillway.edge.accesslog.LogFormatter;
import io.spillway.edge.accesslog.LogInput;
import io.spillway.edge.config.AccessLogConfig;
import io.spillway.edge.config.ConfigException;
import io.spillway.edge.http.filter.StreamInfo;
import io.spillway.edge.http.message.RequestHeaders;
import io.spillway.edge.http.message.ResponseHeaders;
import io.spillway.edge.stats.StatsStore;
import java.net.InetSocketAddress;
import java.time.Duration;
import java.util.List;
import java.util.Optional;
import java.util.SplittableRandom;
import java.util.concurrent.TimeUnit;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.TearDown;
import org.openjdk.jmh.annotations.Warmup;

/**
 * One access log line per request: formatting Envoy's default text format and a six-field JSON
 * format for a typical finished request, and the whole worker-side cost of a file logger (filter,
 * format, hand-off to the flush thread through the bounded MPSC queue; the flush thread writes to
 * /dev/null).
 */
@State(Scope.Benchmark)
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.NANOSECONDS)
@Warmup(iterations = 3, time = 1)
@Measurement(iterations = 5, time = 1)
@Fork(1)
public class AccessLogBenchmark {

  private LogFormatter defaultFormat;
  private LogFormatter jsonFormat;
  private LogInput input;
  private AccessLogManager manager;
  private AccessLogs fileLog;

  @Setup
  public void setup() throws ConfigException {
    defaultFormat = LogFormatter.compile(AccessLogConfig.textFormat(AccessLogConfig.DEFAULT_FORMAT, false));
    jsonFormat = LogFormatter.compile(new AccessLogConfig.JsonFormat(List.of(
        field("start_time", "%START_TIME%"), field("method", "%REQ(:METHOD)%"),
        field("path", "%REQ(X-ENVOY-ORIGINAL-PATH?:PATH)%"), field("code", "%RESPONSE_CODE%"),
        field("duration", "%DURATION%"), field("upstream", "%UPSTREAM_HOST%")), true, false));
    StreamInfo info = new StreamInfo(1_000_000_000L, 1_709_618_828_123_456_789L, "10.1.2.3", false);
    info.setDownstreamAddresses(new InetSocketAddress("10.1.2.3", 51234), new InetSocketAddress("10.0.0.1", 10000));
    info.setResponseCode(200);
    info.addBytesReceived(0);
    info.addBytesSent(1_234);
    info.markLastDownstreamRx(1_000_100_000L);
    info.markFirstUpstreamRx(1_003_000_000L);
    info.markEnd(1_004_000_000L);
    HttpHeaders req = new DefaultHttpHeaders();
    req.add("user-agent", "Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36");
    req.add("x-request-id", "1c4e5a2b-7d3f-4b8e-9a61-0f2d3c4b5a69");
    req.add("x-forwarded-for", "203.0.113.9");
    HttpHeaders resp = new DefaultHttpHeaders();
    resp.add("x-envoy-upstream-service-time", "3");
    resp.add("content-type", "application/json");
    input = new LogInput(info, new RequestHeaders("GET", "https", "api.example.com", "/v1/items/42?expand=owner", req),
        new ResponseHeaders(200, resp), null, new SplittableRandom(1));
    manager = new AccessLogManager(new StatsStore().rootScope(),
        new AccessLogManager.Settings(Duration.ofMillis(100), 64 * 1024, 64L * 1024 * 1024, 1 << 20));
    fileLog = manager.compile(List.of(new AccessLogConfig(AccessLogConfig.Sink.FILE, "/dev/null",
        AccessLogConfig.textFormat(AccessLogConfig.DEFAULT_FORMAT, false), Optional.empty())));
  }

  private static AccessLogConfig.JsonField field(String key, String format) throws ConfigException {
    return new AccessLogConfig.JsonField(key,
        new AccessLogConfig.FormattedValue(AccessLogConfig.textFormat(format, false).tokens()));
  }

  @TearDown
  public void tearDown() {
    manager.close();
  }

  @Benchmark
  public String formatDefault() {
    return defaultFormat.format(input);
  }

  @Benchmark
  public String formatJson() {
    return jsonFormat.format(input);
  }

  @Benchmark
  public void logDefaultToFile() {
    fileLog.log(input);
  }
}
