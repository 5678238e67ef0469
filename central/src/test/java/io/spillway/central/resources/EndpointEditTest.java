package io.spillway.central.resources;

import static org.assertj.core.api.Assertions.assertThat;

import io.envoyproxy.envoy.config.endpoint.v3.ClusterLoadAssignment;
import io.envoyproxy.envoy.config.endpoint.v3.LbEndpoint;
import org.junit.jupiter.api.Test;

/** Registering and deregistering one address of a ClusterLoadAssignment. */
class EndpointEditTest {

  private static String address(LbEndpoint lb) {
    return lb.getEndpoint().getAddress().getSocketAddress().getAddress() + ":" + lb.getEndpoint().getAddress().getSocketAddress().getPortValue();
  }

  @Test
  void registeringCreatesTheAssignmentThenAppendsAndUpdatesWeights() {
    ClusterLoadAssignment one = EndpointsApi.withEndpoint(null, "svc", "10.0.0.1", 80, 0, 0);
    assertThat(one.getClusterName()).isEqualTo("svc");
    assertThat(one.getEndpoints(0).getLbEndpoints(0).hasLoadBalancingWeight()).isFalse();
    ClusterLoadAssignment two = EndpointsApi.withEndpoint(one, "svc", "10.0.0.2", 80, 4, 0);
    assertThat(two.getEndpoints(0).getLbEndpointsList()).extracting(EndpointEditTest::address).containsExactly("10.0.0.1:80", "10.0.0.2:80");
    assertThat(EndpointsApi.withEndpoint(two, "svc", "10.0.0.1", 80, 0, 0)).isEqualTo(two);
    ClusterLoadAssignment weighted = EndpointsApi.withEndpoint(two, "svc", "10.0.0.1", 80, 7, 0);
    assertThat(weighted.getEndpoints(0).getLbEndpoints(0).getLoadBalancingWeight().getValue()).isEqualTo(7);
    assertThat(weighted.getEndpoints(0).getLbEndpointsCount()).isEqualTo(2);
  }

  @Test
  void theAddressesLocalityAlwaysHasAWeight() {
    ClusterLoadAssignment one = EndpointsApi.withEndpoint(null, "svc", "10.0.0.1", 80, 0, 0);
    assertThat(one.getEndpoints(0).getLoadBalancingWeight().getValue()).isEqualTo(1);
    ClusterLoadAssignment heavier = EndpointsApi.withEndpoint(one, "svc", "10.0.0.2", 80, 0, 9);
    assertThat(heavier.getEndpoints(0).getLoadBalancingWeight().getValue()).isEqualTo(9);
    // absent keeps the weight the locality has
    assertThat(EndpointsApi.withEndpoint(heavier, "svc", "10.0.0.1", 80, 0, 0)).isEqualTo(heavier);
    // an assignment stored before locality weights were written gets one on its next registration
    ClusterLoadAssignment unweighted = one.toBuilder().setEndpoints(0, one.getEndpoints(0).toBuilder()
        .clearLoadBalancingWeight()).build();
    assertThat(EndpointsApi.withEndpoint(unweighted, "svc", "10.0.0.1", 80, 0, 0).getEndpoints(0)
        .getLoadBalancingWeight().getValue()).isEqualTo(1);
  }

  @Test
  void deregisteringRemovesOnlyThatAddressAndPort() {
    ClusterLoadAssignment both = EndpointsApi.withEndpoint(EndpointsApi.withEndpoint(null, "svc", "10.0.0.1", 80, 0, 0), "svc", "10.0.0.1", 81, 0, 0);
    ClusterLoadAssignment left = EndpointsApi.withoutEndpoint(both, "10.0.0.1", 80);
    assertThat(left.getEndpoints(0).getLbEndpointsList()).extracting(EndpointEditTest::address).containsExactly("10.0.0.1:81");
    assertThat(EndpointsApi.withoutEndpoint(left, "10.0.0.1", 80)).isNull();
  }
}
