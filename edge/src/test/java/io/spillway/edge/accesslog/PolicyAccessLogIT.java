package io.spillway.edge.accesslog;

import static org.assertj.core.api.Assertions.assertThat;

import io.netty.handler.codec.http.DefaultHttpHeaders;
import io.spillway.edge.config.AccessLogConfig;
import io.spillway.edge.http.filter.StreamInfo;
import io.spillway.edge.http.message.RequestHeaders;
import io.spillway.edge.http.message.ResponseHeaders;
import io.spillway.edge.stats.StatsStore;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Optional;
import java.util.SplittableRandom;
import java.util.function.BooleanSupplier;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The control plane's access log on a connection manager's logs: added beside the bootstrap's,
 * replaced (the old file still written for a grace period after the swap, then closed), removed;
 * real files and flush threads.
 */
class PolicyAccessLogIT {

  @TempDir
  Path dir;

  private final StatsStore stats = new StatsStore();
  private final AccessLogManager manager = new AccessLogManager(stats.rootScope(),
      new AccessLogManager.Settings(Duration.ofMillis(20), 1 << 20, 1 << 20, 1024));

  @AfterEach
  void close() {
    manager.close();
  }

  private static LogInput request(String path, int code) {
    StreamInfo info = new StreamInfo(1_000, 0, "10.0.0.1", false);
    info.setResponseCode(code);
    info.markEnd(2_000_000);
    return new LogInput(info, new RequestHeaders("GET", "http", "example.com", path, new DefaultHttpHeaders()),
        new ResponseHeaders(code, new DefaultHttpHeaders()), null, new SplittableRandom(1));
  }

  private AccessLogConfig file(String name, String format) throws Exception {
    return new AccessLogConfig(AccessLogConfig.Sink.FILE, dir.resolve(name).toString(),
        AccessLogConfig.textFormat(format, false), Optional.empty());
  }

  private static List<String> lines(Path file) {
    try {
      return Files.exists(file) ? Files.readAllLines(file, StandardCharsets.UTF_8) : List.of();
    } catch (IOException e) {
      throw new IllegalStateException(e);
    }
  }

  private static void await(BooleanSupplier condition) throws InterruptedException {
    long deadline = System.nanoTime() + Duration.ofSeconds(10).toNanos();
    while (!condition.getAsBoolean()) {
      assertThat(System.nanoTime()).as("condition not met within 10 s").isLessThan(deadline);
      Thread.sleep(10);
    }
  }

  @Test
  void theSectionIsAddedBesideTheBootstrapsReplacedAndRemoved() throws Exception {
    AccessLogs logs = manager.compileForConnectionManager(List.of(file("bootstrap.log", "boot %REQ(:PATH)%\n")));
    logs.log(request("/1", 200));

    manager.policyLog().apply(Optional.of(file("sub/central.log", "a %REQ(:PATH)% %RESPONSE_CODE%\n")));
    logs.log(request("/2", 200));
    logs.log(request("/3", 503));
    Path first = dir.resolve("sub/central.log");
    await(() -> lines(first).size() == 2);

    AccessLogger replaced = manager.policyLog().logger();
    manager.policyLog().apply(Optional.of(file("second.log", "b %REQ(:PATH)%\n")));
    replaced.log(request("/late", 200)); // a worker that read the old reference just before the swap
    await(() -> lines(first).size() == 3);
    assertThat(lines(first)).as("the replaced file still takes a late line, then is closed")
        .containsExactly("a /2 200", "a /3 503", "a /late 200");
    logs.log(request("/4", 200));
    Path second = dir.resolve("second.log");
    await(() -> lines(second).size() == 1);
    assertThat(lines(second)).containsExactly("b /4");

    manager.policyLog().apply(Optional.empty());
    logs.log(request("/5", 200));
    Path bootstrap = dir.resolve("bootstrap.log");
    await(() -> lines(bootstrap).size() == 5);
    assertThat(lines(bootstrap)).containsExactly("boot /1", "boot /2", "boot /3", "boot /4", "boot /5");
    assertThat(lines(first)).hasSize(3);
    assertThat(lines(second)).containsExactly("b /4");
    assertThat(manager.policyLog().config()).isEmpty();
  }

  @Test
  void connectionManagersWithoutBootstrapLogsWriteTheSectionOnly() throws Exception {
    AccessLogs logs = manager.compileForConnectionManager(List.of());
    assertThat(logs.isEmpty()).isTrue();
    AccessLogConfig central = new AccessLogConfig(AccessLogConfig.Sink.FILE, dir.resolve("c.log").toString(),
        AccessLogConfig.textFormat("%RESPONSE_CODE%\n", false),
        Optional.of(new AccessLogConfig.StatusCodeFilter(AccessLogConfig.Op.GE, 500)));
    manager.policyLog().apply(Optional.of(central));
    assertThat(logs.isEmpty()).isFalse();
    logs.log(request("/", 200));
    logs.log(request("/", 502));
    await(() -> lines(dir.resolve("c.log")).size() == 1);
    assertThat(lines(dir.resolve("c.log"))).containsExactly("502");
    assertThat(manager.policyLog().config()).contains(central);
    manager.policyLog().apply(Optional.empty());
    assertThat(logs.isEmpty()).isTrue();
  }

  @Test
  void anEqualSectionKeepsItsFileAndAnUnopenableOneKeepsThePrevious() throws Exception {
    AccessLogs logs = manager.compileForConnectionManager(List.of());
    AccessLogConfig central = file("same.log", "%REQ(:PATH)%\n");
    manager.policyLog().apply(Optional.of(central));
    logs.log(request("/a", 200));
    manager.policyLog().apply(Optional.of(file("same.log", "%REQ(:PATH)%\n")));
    logs.log(request("/b", 200));
    Files.writeString(dir.resolve("blocker"), "a file, not a directory");
    manager.policyLog().apply(Optional.of(file("blocker/x.log", "%REQ(:PATH)%\n")));
    logs.log(request("/c", 200));
    await(() -> lines(dir.resolve("same.log")).size() == 3);
    assertThat(lines(dir.resolve("same.log"))).containsExactly("/a", "/b", "/c");
    assertThat(manager.policyLog().config()).contains(central);
  }
}
