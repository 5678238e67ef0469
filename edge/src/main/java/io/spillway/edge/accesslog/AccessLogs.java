package io.spillway.edge.accesslog;

import java.util.List;

/**
 * The access logs of one connection manager, listener or admin listener, in configuration order;
 * a connection manager's end with the control plane's ({@link PolicyAccessLog}), read through one
 * published reference per stream.
 */
public final class AccessLogs {

  /** No access log. */
  public static final AccessLogs NONE = new AccessLogs(List.of());

  private final AccessLogger[] loggers;
  private final PolicyAccessLog policyLog; // null: none

  public AccessLogs(List<AccessLogger> loggers) {
    this(loggers.toArray(new AccessLogger[0]), null);
  }

  private AccessLogs(AccessLogger[] loggers, PolicyAccessLog policyLog) {
    this.loggers = loggers;
    this.policyLog = policyLog;
  }

  /** These and, after them, whatever {@code policyLog} has in force at the time of each stream. */
  AccessLogs with(PolicyAccessLog policyLog) {
    return new AccessLogs(loggers, policyLog);
  }

  public boolean isEmpty() {
    return loggers.length == 0 && (policyLog == null || policyLog.logger() == null);
  }

  /** Gives {@code in} to every logger. */
  public void log(LogInput in) {
    for (AccessLogger l : loggers) {
      l.log(in);
    }
    if (policyLog != null) {
      AccessLogger l = policyLog.logger();
      if (l != null) {
        l.log(in);
      }
    }
  }
}
