package io.spillway.edge.accesslog;

import io.spillway.edge.config.AccessLogConfig;
import io.spillway.edge.stats.Scope;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

/**
 * The edge's access log files (Envoy's {@code AccessLogManager}): one {@link BufferedLogFile} per
 * path (and one each for stdout and stderr), shared by every logger that names it, with Envoy's
 * {@code filesystem.*} stats. Compiles translated access logs against them. Used from the control
 * side: configuration loads, {@code /reopen_logs}, SIGUSR1 and shutdown.
 */
public final class AccessLogManager implements AutoCloseable {

  /**
   * How files are flushed and bounded.
   *
   * @param flushInterval Envoy's {@code --file-flush-interval-msec} (default 10 s)
   * @param flushBytes a file is written as soon as this much is queued (Envoy's {@code --file-flush-min-size-kb}, 64 KiB)
   * @param maxBufferedBytes past this much queued, lines are dropped and counted
   * @param maxLines at most this many lines queued per file
   */
  public record Settings(Duration flushInterval, long flushBytes, long maxBufferedBytes, int maxLines) {
    /** Envoy's flush interval and size; 16 MiB and 65 536 lines at most per file. */
    public static final Settings DEFAULTS = new Settings(Duration.ofSeconds(10), 64 * 1024, 16 * 1024 * 1024, 65_536);
  }

  private final BufferedLogFile.Limits limits;
  private final BufferedLogFile.Stats stats;
  private final Map<String, BufferedLogFile> files = new ConcurrentHashMap<>();
  private final java.util.function.Supplier<io.spillway.edge.runtime.RuntimeSnapshot> runtime;
  private final PolicyAccessLog policyLog = new PolicyAccessLog(this);

  /** Without a runtime: filters' runtime keys never override their defaults. */
  public AccessLogManager(Scope root, Settings settings) {
    this(root, settings, () -> io.spillway.edge.runtime.RuntimeSnapshot.EMPTY);
  }

  /** @param runtime the runtime whose keys the filters' {@code runtime_key}s read */
  public AccessLogManager(Scope root, Settings settings,
      java.util.function.Supplier<io.spillway.edge.runtime.RuntimeSnapshot> runtime) {
    this.runtime = runtime;
    this.limits = new BufferedLogFile.Limits(settings.flushInterval().toNanos(), settings.flushBytes(),
        settings.maxBufferedBytes(), settings.maxLines());
    Scope fs = root.scope("filesystem");
    this.stats = new BufferedLogFile.Stats(fs.counter("write_buffered"), fs.counter("write_completed"),
        fs.counter("flushed_by_timer"), fs.counter("write_failed"), fs.counter("reopen_failed"),
        fs.counter("write_dropped"));
    fs.gauge("write_total_buffered", () -> files.values().stream().mapToLong(BufferedLogFile::bufferedBytes).sum());
  }

  /**
   * Compiles access logs: formats and filters, and the files they write to (opened now, so a path
   * that cannot be written is an error of this load).
   *
   * @throws IllegalArgumentException naming the path that cannot be opened
   */
  public AccessLogs compile(List<AccessLogConfig> configs) {
    if (configs.isEmpty()) {
      return AccessLogs.NONE;
    }
    List<AccessLogger> loggers = new ArrayList<>();
    for (AccessLogConfig c : configs) {
      LogFilter filter = c.filter().map(f -> LogFilter.compile(f, runtime)).orElse(LogFilter.ALL);
      loggers.add(new AccessLogger(filter, LogFormatter.compile(c.format()), sink(c)));
    }
    return new AccessLogs(loggers);
  }

  /**
   * Compiles a connection manager's access logs and adds the control plane's ({@link #policyLog()})
   * after them: the bootstrap's entries always stay, central's is one more.
   */
  public AccessLogs compileForConnectionManager(List<AccessLogConfig> configs) {
    return compile(configs).with(policyLog);
  }

  /** The access log of the control plane's {@code accessLog} section, on every connection manager. */
  public PolicyAccessLog policyLog() {
    return policyLog;
  }

  java.util.function.Supplier<io.spillway.edge.runtime.RuntimeSnapshot> runtime() {
    return runtime;
  }

  /**
   * A file of its own for a logger that is replaced at run time (closed with it), or null when it
   * writes a stream or a path a bootstrap logger already writes (then it shares that one). Parent
   * directories are created.
   *
   * @throws IllegalArgumentException naming the path when it cannot be opened
   */
  BufferedLogFile ownedFile(AccessLogConfig c) {
    if (c.sink() != AccessLogConfig.Sink.FILE || files.containsKey(c.path())) {
      return null;
    }
    return BufferedLogFile.openCreatingDirectories(c.path(), limits, stats);
  }

  /** The buffered file of a logger's sink, opened the first time it is named. */
  LogSink sink(AccessLogConfig c) {
    return switch (c.sink()) {
      case STDOUT -> files.computeIfAbsent("/dev/stdout (stream)", k -> BufferedLogFile.stdout(limits, stats));
      case STDERR -> files.computeIfAbsent("/dev/stderr (stream)", k -> BufferedLogFile.stderr(limits, stats));
      case FILE -> files.computeIfAbsent(c.path(), p -> BufferedLogFile.open(p, limits, stats));
    };
  }

  /** Reopens every file before its next write (logrotate: {@code POST /reopen_logs}, SIGUSR1). */
  public void reopen() {
    files.values().forEach(BufferedLogFile::reopen);
    policyLog.reopen();
  }

  /** Writes what is buffered and stops every flush thread. */
  @Override
  public void close() {
    policyLog.close();
    files.values().forEach(BufferedLogFile::close);
    files.clear();
  }
}
