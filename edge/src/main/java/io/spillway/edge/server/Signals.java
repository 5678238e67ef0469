package io.spillway.edge.server;

import sun.misc.Signal;

/**
 * SIGTERM and SIGINT start a drain whose end exits the process with status 0 (as Envoy does),
 * instead of the JVM's default 143/130.
 */
final class Signals {
  private Signals() {}

  static void onTerminate(Runnable action) {
    Signal.handle(new Signal("TERM"), s -> action.run());
    Signal.handle(new Signal("INT"), s -> action.run());
  }
}
