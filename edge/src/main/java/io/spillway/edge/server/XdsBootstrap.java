package io.spillway.edge.server;

import io.envoyproxy.envoy.config.bootstrap.v3.Bootstrap;
import io.spillway.edge.config.XdsClientConfig;
import io.spillway.policy.DeploymentDefaults;
import java.util.Set;
import java.util.stream.Collectors;

/** What the edge derives from its bootstrap and deployment for its ADS stream, before it opens it. */
final class XdsBootstrap {

  /** The node metadata key under which the edge reports its deployment's overload baseline. */
  static final String DEPLOYMENT_DEFAULTS_KEY = "spillway.deployment_defaults";

  private XdsBootstrap() {}

  /**
   * The node identity with the deployment's overload baseline added under
   * {@value #DEPLOYMENT_DEFAULTS_KEY} (HTTP_ADMISSION_* / HTTP_CLIENT_GUARD_* variables set in this
   * edge's environment, canonical values), so the control plane can validate a policy against what
   * this edge falls back to and show it.
   */
  static XdsClientConfig withDeploymentDefaults(XdsClientConfig xc, DeploymentDefaults deployment) {
    com.google.protobuf.Struct.Builder defaults = com.google.protobuf.Struct.newBuilder();
    deployment.environmentVariables().forEach((name, value) ->
        defaults.putFields(name, com.google.protobuf.Value.newBuilder().setStringValue(value).build()));
    io.envoyproxy.envoy.config.core.v3.Node.Builder node = xc.node().toBuilder();
    node.getMetadataBuilder().putFields(DEPLOYMENT_DEFAULTS_KEY,
        com.google.protobuf.Value.newBuilder().setStructValue(defaults).build());
    return xc.withNode(node.build());
  }

  /**
   * The clusters that reach the xDS servers ({@code ads_config.grpc_services[].envoy_grpc}): never
   * limited by the outbound guard.
   */
  static Set<String> clusterNames(Bootstrap bootstrap) {
    if (!bootstrap.hasDynamicResources()) {
      return Set.of();
    }
    return bootstrap.getDynamicResources().getAdsConfig().getGrpcServicesList().stream()
        .filter(g -> g.hasEnvoyGrpc())
        .map(g -> g.getEnvoyGrpc().getClusterName())
        .collect(Collectors.toSet());
  }
}
