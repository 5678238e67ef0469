package io.spillway.edge.accesslog;

import io.spillway.edge.config.AccessLogConfig;
import java.util.Optional;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The access log the control plane's {@code accessLog} section asks for: one more logger on every
 * HTTP connection manager, beside the bootstrap's {@code access_log} entries. Workers read one
 * published reference ({@link #logger()}) per finished stream; the control side compiles a new
 * section, publishes it, and only then retires the logger it replaced: its flush thread keeps
 * writing for {@link #RETIRE_GRACE} (a worker that read the old reference just before the swap
 * still gets its line written), then writes what is queued, closes the file and stops. A file is this logger's own, with its own buffer and flush thread, unless a
 * bootstrap access log already writes that path, which it then shares (and leaves open).
 */
public final class PolicyAccessLog {
  private static final Logger log = LoggerFactory.getLogger(PolicyAccessLog.class);

  /** A compiled section: what workers call, what it was compiled from, the file to close after it. */
  private record Installed(AccessLogger logger, AccessLogConfig config, BufferedLogFile owned) {}

  /** How long a replaced logger's file still takes lines before it is closed. */
  static final java.time.Duration RETIRE_GRACE = java.time.Duration.ofSeconds(1);

  private final AccessLogManager manager;
  private final java.util.List<BufferedLogFile> retired = new java.util.ArrayList<>(); // closed at shutdown
  private volatile Installed current; // null: no section

  PolicyAccessLog(AccessLogManager manager) {
    this.manager = manager;
  }

  /** The logger in force, or null; read once per finished stream. */
  AccessLogger logger() {
    Installed c = current;
    return c == null ? null : c.logger;
  }

  /** What the logger in force was compiled from, for the admin. */
  public Optional<AccessLogConfig> config() {
    Installed c = current;
    return c == null ? Optional.empty() : Optional.of(c.config);
  }

  /**
   * Puts a new section in force (empty: removes it). An equal section changes nothing; a file that
   * cannot be opened leaves the previous logger in force. Main thread only.
   */
  public void apply(Optional<AccessLogConfig> config) {
    Installed old = current;
    if (config.isEmpty()) {
      current = null;
      retire(old);
      if (old != null) {
        log.info("access log from the control plane removed");
      }
      return;
    }
    if (old != null && old.config.equals(config.get())) {
      return;
    }
    Installed next;
    try {
      AccessLogConfig c = config.get();
      LogFilter filter = c.filter().map(f -> LogFilter.compile(f, manager.runtime())).orElse(LogFilter.ALL);
      BufferedLogFile owned = manager.ownedFile(c);
      LogSink sink = owned != null ? owned : manager.sink(c);
      next = new Installed(new AccessLogger(filter, LogFormatter.compile(c.format()), sink), c, owned);
    } catch (IllegalArgumentException e) {
      log.error("the control plane's access log cannot be put in force, the previous one stays: {}", e.getMessage());
      return;
    }
    current = next;
    retire(old); // after the swap
    log.info("access log from the control plane in force: {} {}", next.config.sink(), next.config.path());
  }

  /** Reopens its own file (logrotate). */
  void reopen() {
    Installed c = current;
    if (c != null && c.owned != null) {
      c.owned.reopen();
    }
  }

  /** Writes what is buffered and closes its own files, the retired ones too (shutdown). */
  void close() {
    Installed old = current;
    current = null;
    if (old != null && old.owned != null) {
      old.owned.close();
    }
    retired.forEach(BufferedLogFile::close);
    retired.clear();
  }

  private void retire(Installed installed) {
    if (installed != null && installed.owned != null) {
      installed.owned.closeAfter(RETIRE_GRACE.toNanos());
      retired.removeIf(f -> !f.isRunning());
      retired.add(installed.owned);
    }
  }
}
