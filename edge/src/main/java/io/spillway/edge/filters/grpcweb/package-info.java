/**
 * Envoy's gRPC-Web HTTP filter: gRPC-Web requests (binary or base64 text) bridged to gRPC over
 * HTTP/2, and the gRPC responses bridged back, trailers as the body's last frame.
 */
package io.spillway.edge.filters.grpcweb;
