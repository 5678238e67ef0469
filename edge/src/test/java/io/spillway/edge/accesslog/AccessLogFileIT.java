package io.spillway.edge.accesslog;

import static org.assertj.core.api.Assertions.assertThat;

import io.spillway.edge.config.AccessLogConfig;
import io.spillway.edge.config.ConfigException;
import io.spillway.edge.stats.StatsStore;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Optional;
import java.util.function.BooleanSupplier;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Real files and flush threads: flushing by interval, by a full buffer, dropping, reopening after a rename. */
class AccessLogFileIT {

  @TempDir
  Path dir;

  private final StatsStore stats = new StatsStore();
  private AccessLogManager manager;

  @AfterEach
  void close() {
    if (manager != null) {
      manager.close();
    }
  }

  private LogSink open(Path file, Duration interval, long flushBytes, long maxBytes) throws ConfigException {
    manager = new AccessLogManager(stats.rootScope(), new AccessLogManager.Settings(interval, flushBytes, maxBytes, 1024));
    return manager.sink(new AccessLogConfig(AccessLogConfig.Sink.FILE, file.toString(),
        AccessLogConfig.textFormat("%PROTOCOL%\n", false), Optional.empty()));
  }

  private long counter(String name) {
    return stats.rootScope().scope("filesystem").counter(name).value();
  }

  private static List<String> lines(Path file) {
    try {
      return Files.exists(file) ? Files.readAllLines(file, StandardCharsets.UTF_8) : List.of();
    } catch (IOException e) {
      throw new IllegalStateException(e);
    }
  }

  /** Polls for at most 10 s: the flush thread writes on its own schedule. */
  private static void await(BooleanSupplier condition) throws InterruptedException {
    long deadline = System.nanoTime() + Duration.ofSeconds(10).toNanos();
    while (!condition.getAsBoolean()) {
      assertThat(System.nanoTime()).as("condition not met within 10 s").isLessThan(deadline);
      Thread.sleep(10);
    }
  }

  @Test
  void flushesEveryInterval() throws Exception {
    Path file = dir.resolve("interval.log");
    LogSink sink = open(file, Duration.ofMillis(50), 1 << 20, 1 << 20);
    sink.write("a\n");
    sink.write("b\n");
    sink.write("c\n");
    await(() -> lines(file).size() == 3);
    assertThat(lines(file)).containsExactly("a", "b", "c");
    assertThat(counter("write_buffered")).isEqualTo(3);
    assertThat(counter("flushed_by_timer")).isGreaterThanOrEqualTo(1);
    assertThat(counter("write_completed")).isGreaterThanOrEqualTo(1);
    assertThat(counter("write_dropped")).isZero();
  }

  @Test
  void flushesAsSoonAsTheFlushSizeIsQueued() throws Exception {
    Path file = dir.resolve("full.log");
    LogSink sink = open(file, Duration.ofHours(1), 100, 1 << 20);
    sink.write("below the flush size\n");
    Thread.sleep(200);
    assertThat(lines(file)).as("nothing is written before the interval or the flush size").isEmpty();
    // 21 + 80 bytes: one write crosses the flush size, so the flush thread is woken exactly once
    // and finds both lines queued (lines written after a flush wait for the next crossing or the interval).
    sink.write("x".repeat(79) + "\n");
    await(() -> lines(file).size() == 2);
    assertThat(lines(file)).containsExactly("below the flush size", "x".repeat(79));
    assertThat(counter("flushed_by_timer")).isZero();
    assertThat(counter("write_completed")).isEqualTo(1);
  }

  @Test
  void dropsAndCountsWhatDoesNotFitTheBuffer() throws Exception {
    Path file = dir.resolve("dropped.log");
    LogSink sink = open(file, Duration.ofHours(1), 1 << 20, 100);
    for (int i = 0; i < 10; i++) {
      sink.write("0123456789abcdefghi\n"); // 20 bytes: 5 fit in 100
    }
    assertThat(counter("write_dropped")).isEqualTo(5);
    assertThat(counter("write_buffered")).isEqualTo(5);
    manager.close(); // writes what is buffered
    manager = null;
    assertThat(lines(file)).hasSize(5);
  }

  @Test
  void reopensThePathAfterLogrotateRenamedTheFile() throws Exception {
    Path file = dir.resolve("rotated.log");
    Path rotated = dir.resolve("rotated.log.1");
    LogSink sink = open(file, Duration.ofMillis(20), 1 << 20, 1 << 20);
    sink.write("before\n");
    await(() -> lines(file).size() == 1);
    Files.move(file, rotated);
    manager.reopen();
    sink.write("after\n");
    await(() -> lines(file).size() == 1);
    assertThat(lines(file)).containsExactly("after");
    assertThat(lines(rotated)).containsExactly("before");
    assertThat(counter("reopen_failed")).isZero();
  }

  @Test
  void aPathThatCannotBeOpenedFailsTheLoad() {
    manager = new AccessLogManager(stats.rootScope(), AccessLogManager.Settings.DEFAULTS);
    var config = new AccessLogConfig(AccessLogConfig.Sink.FILE, dir.resolve("no/such/dir.log").toString(),
        new AccessLogConfig.TextFormat(List.of(), false), Optional.empty());
    org.assertj.core.api.Assertions.assertThatThrownBy(() -> manager.compile(List.of(config)))
        .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("no/such/dir.log cannot be opened");
  }
}
