/**
 * The HTTP/2 connection codec shared by downstream and upstream connections: Netty's frame codec
 * built from {@code http2_protocol_options}, Envoy's flood limits, error codes and codec stats (hot path).
 */
package io.spillway.edge.http2;
