package io.spillway.edge.overload.monitor;

/** A monitor's source answered something it cannot use (a bad number, a zero limit, time going back). */
public final class MonitorReadException extends Exception {

  public MonitorReadException(String message) {
    super(message);
  }

  public MonitorReadException(String message, Throwable cause) {
    super(message, cause);
  }
}
