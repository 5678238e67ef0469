package io.spillway.edge.config;

import io.envoyproxy.envoy.config.core.v3.GrpcService;
import io.envoyproxy.envoy.config.core.v3.HeaderValue;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.function.Predicate;

/**
 * A {@code GrpcService} → {@link GrpcServiceConfig}: {@code envoy_grpc} with a configured cluster,
 * its authority, {@code timeout} and {@code initial_metadata}. {@code google_grpc}, retries and the
 * other fields are rejected with their path.
 */
final class GrpcServiceTranslator {

  private static final SupportedFields GRPC_SERVICE = SupportedFields.of(GrpcService.getDescriptor(),
      "envoy_grpc", "google_grpc", "timeout", "initial_metadata");
  private static final SupportedFields ENVOY_GRPC = SupportedFields.of(GrpcService.EnvoyGrpc.getDescriptor(),
      "cluster_name", "authority", "skip_envoy_headers");
  private static final SupportedFields HEADER_VALUE = SupportedFields.of(HeaderValue.getDescriptor(), "key", "value");

  private GrpcServiceTranslator() {}

  /**
   * @param knownCluster whether a cluster of that name is configured
   * @param path the path of the {@code grpc_service} field
   */
  static GrpcServiceConfig envoyGrpc(GrpcService service, Predicate<String> knownCluster, FieldPath path)
      throws ConfigException {
    GRPC_SERVICE.check(service, path);
    if (service.hasGoogleGrpc()) {
      throw new ConfigException(path.field("google_grpc"),
          "google_grpc is not supported (use envoy_grpc with a cluster of the edge)");
    }
    FieldPath envoyPath = path.field("envoy_grpc");
    if (!service.hasEnvoyGrpc()) {
      throw new ConfigException(envoyPath, "envoy_grpc is required");
    }
    GrpcService.EnvoyGrpc envoy = service.getEnvoyGrpc();
    ENVOY_GRPC.check(envoy, envoyPath);
    String cluster = envoy.getClusterName();
    if (cluster.isEmpty()) {
      throw new ConfigException(envoyPath.field("cluster_name"), "cluster_name is required");
    }
    if (!knownCluster.test(cluster)) {
      throw new ConfigException(envoyPath.field("cluster_name"),
          "unknown cluster \"" + cluster + "\" (no cluster of that name is configured)");
    }
    String authority = envoy.getAuthority();
    if (!authority.isEmpty() && !validAuthority(authority)) {
      throw new ConfigException(envoyPath.field("authority"), "\"" + authority + "\" is not a valid authority");
    }
    if (authority.isEmpty() && !validAuthority(cluster)) {
      throw new ConfigException(envoyPath.field("authority"), "the cluster name \"" + cluster
          + "\" is not a valid :authority for the calls; set authority");
    }
    Optional<Duration> timeout = service.hasTimeout()
        ? Optional.of(ProtoValues.duration(true, service.getTimeout(), path.field("timeout"), Duration.ZERO))
        : Optional.empty();
    List<GrpcServiceConfig.Metadata> metadata = new ArrayList<>();
    FieldPath metadataPath = path.field("initial_metadata");
    for (int i = 0; i < service.getInitialMetadataCount(); i++) {
      FieldPath headerPath = metadataPath.index(i);
      HeaderValue h = service.getInitialMetadata(i);
      HEADER_VALUE.check(h, headerPath);
      String name = HeaderMutationTranslator.headerName(h.getKey(), headerPath.field("key"));
      if (name.startsWith(":") || name.startsWith("grpc-") || name.equals("te") || name.equals("content-type")
          || name.endsWith("-bin")) {
        throw new ConfigException(headerPath.field("key"), "\"" + h.getKey() + "\" may not be set"
            + " (pseudo-headers, te, content-type, grpc-* and binary -bin metadata are the call's own)");
      }
      for (int c = 0; c < h.getValue().length(); c++) {
        char ch = h.getValue().charAt(c);
        if (ch < 0x20 || ch > 0x7e) {
          throw new ConfigException(headerPath.field("value"), "must be printable ASCII (gRPC ASCII metadata)");
        }
      }
      metadata.add(new GrpcServiceConfig.Metadata(name, h.getValue()));
    }
    return new GrpcServiceConfig(cluster, authority.isEmpty() ? cluster : authority, timeout, metadata);
  }

  /** A host, optionally with a port: letters, digits and {@code -._~:[]} only. */
  static boolean validAuthority(String authority) {
    for (int i = 0; i < authority.length(); i++) {
      char c = authority.charAt(i);
      boolean ok = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || "-._~:[]".indexOf(c) >= 0;
      if (!ok) {
        return false;
      }
    }
    return true;
  }
}
