package io.spillway.edge.authz;

import io.spillway.edge.config.ExtAuthzConfig;

/**
 * Where ext_authz filters get their gRPC clients: one per cluster (and authority), built when the
 * connection manager is built (control side), shared by every worker, closed when the edge stops.
 */
public interface AuthorizationClients {

  /** The client of {@code config}'s gRPC service ({@link ExtAuthzConfig.Service#GRPC}). */
  AuthorizationClient grpc(ExtAuthzConfig config);

  /** No gRPC clients: for edges (and tests) whose filters never use one. */
  AuthorizationClients NONE = config -> {
    throw new IllegalStateException("no gRPC authorization clients for cluster " + config.cluster());
  };
}
