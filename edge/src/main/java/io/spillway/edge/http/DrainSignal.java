package io.spillway.edge.http;

/**
 * Whether the edge is draining: HTTP/1 responses then carry {@code Connection: close} and
 * HTTP/2 connections are sent GOAWAY. Set once by the drain manager; read on the hot path.
 */
public final class DrainSignal {
  private volatile boolean draining;

  public boolean isDraining() {
    return draining;
  }

  public void startDraining() {
    draining = true;
  }
}
