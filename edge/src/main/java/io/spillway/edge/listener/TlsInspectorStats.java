package io.spillway.edge.listener;

import io.spillway.edge.stats.Counter;
import io.spillway.edge.stats.Scope;

/**
 * The TLS inspector's stats, Envoy's names under {@code tls_inspector.*}, and the listener's
 * {@code downstream_pre_cx_timeout} (listener filters that outlasted {@code listener_filters_timeout}).
 */
final class TlsInspectorStats {
  final Counter tlsFound;
  final Counter tlsNotFound;
  final Counter sniFound;
  final Counter sniNotFound;
  final Counter alpnFound;
  final Counter alpnNotFound;
  final Counter clientHelloTooLarge;
  final Counter downstreamPreCxTimeout;

  TlsInspectorStats(Scope inspector, Scope listener) {
    java.util.Objects.requireNonNull(inspector, "inspector scope");
    tlsFound = inspector.counter("tls_found");
    tlsNotFound = inspector.counter("tls_not_found");
    sniFound = inspector.counter("sni_found");
    sniNotFound = inspector.counter("sni_not_found");
    alpnFound = inspector.counter("alpn_found");
    alpnNotFound = inspector.counter("alpn_not_found");
    clientHelloTooLarge = inspector.counter("client_hello_too_large");
    downstreamPreCxTimeout = listener.counter("downstream_pre_cx_timeout");
  }
}
