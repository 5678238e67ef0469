package io.spillway.edge.config;

import java.time.Duration;
import java.util.List;
import java.util.Optional;

/**
 * A {@code GrpcService} with {@code envoy_grpc}: the edge's cluster the calls go to, their
 * {@code :authority} and metadata. Shared by the filters that call a gRPC service (ext_authz, the
 * global rate limit filter); one channel serves every service config with the same cluster and authority.
 *
 * @param cluster {@code envoy_grpc.cluster_name}, a configured cluster
 * @param authority {@code envoy_grpc.authority}, or the cluster's name when unset
 * @param timeout {@code grpc_service.timeout} when set (each filter says what it means)
 * @param initialMetadata {@code initial_metadata}: ASCII metadata sent with every call, names lower case
 */
public record GrpcServiceConfig(String cluster, String authority, Optional<Duration> timeout,
    List<Metadata> initialMetadata) {

  public GrpcServiceConfig {
    initialMetadata = List.copyOf(initialMetadata);
  }

  /** One {@code initial_metadata} entry. */
  public record Metadata(String name, String value) {}
}
