package io.spillway.edge.stats.sink;

import java.nio.ByteBuffer;

/** Sends one datagram to a sink's fixed peer without blocking. The seam {@link UdpStatsdSink} is tested through. */
public interface DatagramWriter extends AutoCloseable {

  /**
   * Sends {@code datagram} (its remaining bytes) whole, or not at all.
   *
   * @return false if it was not sent: the socket's send buffer was full, or the send failed
   */
  boolean send(ByteBuffer datagram);

  @Override
  void close();
}
