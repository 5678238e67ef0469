/**
 * The rate limit service over gRPC: {@code RateLimitRequest} building and {@code RateLimitResponse}
 * reading (Envoy's {@code extensions/filters/common/ratelimit/ratelimit_impl.cc}).
 */
package io.spillway.edge.rls.grpc;
