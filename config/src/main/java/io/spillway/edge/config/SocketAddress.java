package io.spillway.edge.config;

/** A host (IP literal or DNS name) and port, as in Envoy's {@code socket_address}. */
public record SocketAddress(String host, int port) {
  @Override
  public String toString() {
    return host.indexOf(':') >= 0 ? "[" + host + "]:" + port : host + ":" + port;
  }
}
