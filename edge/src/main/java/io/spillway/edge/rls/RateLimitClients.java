package io.spillway.edge.rls;

import io.spillway.edge.config.GrpcServiceConfig;

/**
 * Where rate limit filters get their rate limit service clients: one channel per cluster (and
 * authority), taken when the connection manager is built (control side), shared by every worker,
 * closed when the edge stops.
 */
public interface RateLimitClients {

  /** The client of the rate limit service behind {@code service}. */
  RateLimitClient grpc(GrpcServiceConfig service);

  /** No clients: for edges (and tests) whose filters never call a rate limit service. */
  RateLimitClients NONE = service -> {
    throw new IllegalStateException("no rate limit service clients for cluster " + service.cluster());
  };
}
