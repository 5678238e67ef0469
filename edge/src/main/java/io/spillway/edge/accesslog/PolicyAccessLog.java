package io.spillway.edge.accesslog;

import io.spillway.edge.config.AccessLogConfig;
import java.util.Optional;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The access log the control plane's {@code accessLog} section asks for: one more logger on every
 * HTTP connection manager, beside the bootstrap's {@code access_log} entries. Workers read one
 * published reference ({@link #logger()}) per finished stream; the control side compiles a new
 * section, publishes it, and only then closes the logger it replaced (its flush thread writes what
 * is queued and stops). A file is this logger's own, with its own buffer and flush thread, unless a
 * bootstrap access log already writes that path, which it then shares (and leaves open).
 */
public final class PolicyAccessLog {
  private static final Logger log = LoggerFactory.getLogger(PolicyAccessLog.class);

  /** A compiled section: what workers call, what it was compiled from, the file to close after it. */
  private record Installed(AccessLogger logger, AccessLogConfig config, BufferedLogFile owned) {}

  private final AccessLogManager manager;
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
      close(old);
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
    close(old); // after the swap: workers that read it before have handed their line over already or are about to
    log.info("access log from the control plane in force: {} {}", next.config.sink(), next.config.path());
  }

  /** Reopens its own file (logrotate). */
  void reopen() {
    Installed c = current;
    if (c != null && c.owned != null) {
      c.owned.reopen();
    }
  }

  /** Writes what is buffered and closes its own file. */
  void close() {
    Installed old = current;
    current = null;
    close(old);
  }

  private static void close(Installed installed) {
    if (installed != null && installed.owned != null) {
      installed.owned.close();
    }
  }
}
