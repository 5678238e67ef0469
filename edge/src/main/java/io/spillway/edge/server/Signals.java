package io.spillway.edge.server;

import sun.misc.Signal;

/**
 * SIGTERM and SIGINT start a drain whose end exits the process with status 0 (as Envoy does),
 * instead of the JVM's default 143/130. SIGUSR1 reopens the access log files (as Envoy does, for
 * logrotate).
 */
final class Signals {
  private Signals() {}

  static void onTerminate(Runnable action) {
    Signal.handle(new Signal("TERM"), s -> action.run());
    Signal.handle(new Signal("INT"), s -> action.run());
  }

  /** Runs {@code action} on SIGUSR1; false when the JVM does not let the signal be handled. */
  static boolean onReopenLogs(Runnable action) {
    try {
      Signal.handle(new Signal("USR1"), s -> action.run());
      return true;
    } catch (IllegalArgumentException e) {
      return false;
    }
  }
}
