/**
 * ext_authz over gRPC: the channels to the authorization clusters, {@code CheckRequest} building and
 * {@code CheckResponse} reading (Envoy's {@code ext_authz_grpc_impl.cc}, {@code check_request_utils.cc}).
 */
package io.spillway.edge.authz.grpc;
