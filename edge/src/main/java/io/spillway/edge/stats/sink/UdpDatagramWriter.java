package io.spillway.edge.stats.sink;

import java.io.IOException;
import java.net.InetSocketAddress;
import java.net.StandardProtocolFamily;
import java.nio.ByteBuffer;
import java.nio.channels.DatagramChannel;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A non-blocking JDK {@link DatagramChannel}, unconnected, sending to one peer, as Envoy's UDP
 * statsd writer does ({@code sendmsg} to the sink's address). The main thread is not a Netty event
 * loop and nothing is read back, so a plain channel written in place serves without a loop, a
 * pipeline or write promises. A full send buffer or a failed send drops the datagram; a failed send
 * also closes the channel, which the next send reopens.
 */
public final class UdpDatagramWriter implements DatagramWriter {
  private static final Logger log = LoggerFactory.getLogger(UdpDatagramWriter.class);

  private final InetSocketAddress peer;
  private DatagramChannel channel;
  private boolean warned;

  /** @param peer an address already resolved (an IP literal's) */
  public UdpDatagramWriter(InetSocketAddress peer) {
    if (peer.isUnresolved()) {
      throw new IllegalArgumentException("unresolved stats sink address " + peer);
    }
    this.peer = peer;
  }

  @Override
  public boolean send(ByteBuffer datagram) {
    try {
      if (channel == null) {
        channel = DatagramChannel.open(peer.getAddress() instanceof java.net.Inet6Address
            ? StandardProtocolFamily.INET6 : StandardProtocolFamily.INET);
        channel.configureBlocking(false);
      }
      return channel.send(datagram, peer) > 0;
    } catch (IOException | RuntimeException e) {
      if (!warned) {
        warned = true; // once per writer: a sink that cannot send is visible in its stats
        log.warn("stats sink {}: send failed ({}); further failures are only counted", peer, e.toString());
      }
      close();
      return false;
    }
  }

  @Override
  public void close() {
    if (channel != null) {
      try {
        channel.close();
      } catch (IOException e) {
        log.debug("closing the stats sink channel to {}", peer, e);
      }
      channel = null;
    }
  }
}
