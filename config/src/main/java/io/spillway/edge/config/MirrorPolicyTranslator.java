package io.spillway.edge.config;

import io.envoyproxy.envoy.config.route.v3.RouteAction.RequestMirrorPolicy;
import java.util.ArrayList;
import java.util.List;

/**
 * A route action's {@code request_mirror_policies} → {@link Route.MirrorPolicy}s. {@code cluster}
 * or {@code cluster_header} (exactly one), {@code runtime_fraction} and
 * {@code disable_shadow_host_suffix_append} are supported; {@code trace_sampled} is refused: a
 * shadow request's span follows the request's sampling decision (Envoy's behaviour when it is unset).
 */
final class MirrorPolicyTranslator {

  /** Checks a cluster name the way the route translator checks every cluster a route names. */
  @FunctionalInterface
  interface ClusterCheck {
    String check(String name, FieldPath path) throws ConfigException;
  }

  private static final SupportedFields POLICY = SupportedFields.of(RequestMirrorPolicy.getDescriptor(),
      "cluster", "cluster_header", "runtime_fraction", "disable_shadow_host_suffix_append").later("trace_sampled");

  private MirrorPolicyTranslator() {}

  static List<Route.MirrorPolicy> translate(List<RequestMirrorPolicy> policies, FieldPath path, ClusterCheck clusters)
      throws ConfigException {
    List<Route.MirrorPolicy> result = new ArrayList<>(policies.size());
    for (int i = 0; i < policies.size(); i++) {
      FieldPath at = path.index(i);
      RequestMirrorPolicy p = policies.get(i);
      POLICY.check(p, at);
      boolean byName = !p.getCluster().isEmpty();
      boolean byHeader = !p.getClusterHeader().isEmpty();
      if (byName == byHeader) {
        throw new ConfigException(at, byName ? "only one of cluster and cluster_header may be set"
            : "one of cluster or cluster_header is required");
      }
      String cluster = byName ? clusters.check(p.getCluster(), at.field("cluster")) : "";
      String header = byHeader
          ? HeaderMutationTranslator.headerName(p.getClusterHeader(), at.field("cluster_header")) : "";
      RuntimeFraction fraction = p.hasRuntimeFraction()
          ? RuntimeTranslator.fraction(p.getRuntimeFraction(), at.field("runtime_fraction"))
          : RuntimeFraction.ALWAYS;
      result.add(new Route.MirrorPolicy(cluster, header, fraction, !p.getDisableShadowHostSuffixAppend()));
    }
    return result;
  }
}
