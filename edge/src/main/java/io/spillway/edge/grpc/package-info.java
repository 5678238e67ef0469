/**
 * The edge's gRPC client channels to its own clusters ({@code envoy_grpc}) and the unary calls the
 * filters' services make over them (ext_authz, the rate limit service): control side, off the workers.
 */
package io.spillway.edge.grpc;
