package io.spillway.edge.accesslog;

import java.util.List;

/** The access logs of one connection manager, listener or admin listener, in configuration order. */
public final class AccessLogs {

  /** No access log. */
  public static final AccessLogs NONE = new AccessLogs(List.of());

  private final AccessLogger[] loggers;

  public AccessLogs(List<AccessLogger> loggers) {
    this.loggers = loggers.toArray(new AccessLogger[0]);
  }

  public boolean isEmpty() {
    return loggers.length == 0;
  }

  /** Gives {@code in} to every logger. */
  public void log(LogInput in) {
    for (AccessLogger l : loggers) {
      l.log(in);
    }
  }
}
