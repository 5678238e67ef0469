package io.spillway.edge.config;

import static org.assertj.core.api.Assertions.assertThat;

import io.spillway.edge.config.ClusterConfig.ConsistentHash;
import io.spillway.edge.config.ClusterConfig.LbPolicy;
import org.junit.jupiter.api.Test;

class HashLoadBalancingTranslationTest {
  private static final String CLUSTER_0 = "static_resources.clusters[0]";
  private static final String TYPE = "type.googleapis.com/envoy.extensions.load_balancing_policies.";
  private static final String TYPED = CLUSTER_0 + ".load_balancing_policy.policies[0].typed_extension_config"
      + ".typed_config";

  private static ClusterConfig cluster(String yaml) throws ConfigException {
    return BootstrapYaml.minimal().clusters(yaml).translate().clusters().get("backend");
  }

  private static String policy(String type, String config) {
    return """
        - name: backend
          load_balancing_policy:
            policies:
            - typed_extension_config:
                name: p
                typed_config: {"@type": %s%s%s}
        """.formatted(TYPE, type, config.isEmpty() ? "" : ", " + config);
  }

  @Test
  void ringHashWithItsDefaults() throws ConfigException {
    ClusterConfig c = cluster("- {name: backend, lb_policy: RING_HASH}\n");
    assertThat(c.lbPolicy()).isEqualTo(LbPolicy.RING_HASH);
    assertThat(c.lb().consistentHash()).isEqualTo(new ConsistentHash(1024, 8388608, 65537));
  }

  @Test
  void ringHashSizes() throws ConfigException {
    ClusterConfig c = cluster("""
        - name: backend
          lb_policy: RING_HASH
          ring_hash_lb_config: {minimum_ring_size: 64, maximum_ring_size: 4096, hash_function: XX_HASH}
        """);
    assertThat(c.lb().consistentHash().minimumRingSize()).isEqualTo(64);
    assertThat(c.lb().consistentHash().maximumRingSize()).isEqualTo(4096);
  }

  @Test
  void maglevTableSize() throws ConfigException {
    assertThat(cluster("- {name: backend, lb_policy: MAGLEV}\n").lb().consistentHash().tableSize()).isEqualTo(65537);
    ClusterConfig c = cluster("- {name: backend, lb_policy: MAGLEV, maglev_lb_config: {table_size: 251}}\n");
    assertThat(c.lbPolicy()).isEqualTo(LbPolicy.MAGLEV);
    assertThat(c.lb().consistentHash().tableSize()).isEqualTo(251);
  }

  @Test
  void typedPolicies() throws ConfigException {
    ClusterConfig ring = cluster(policy("ring_hash.v3.RingHash", "minimum_ring_size: 128, maximum_ring_size: 256"));
    assertThat(ring.lbPolicy()).isEqualTo(LbPolicy.RING_HASH);
    assertThat(ring.lb().consistentHash().minimumRingSize()).isEqualTo(128);
    assertThat(ring.lb().consistentHash().maximumRingSize()).isEqualTo(256);
    ClusterConfig maglev = cluster(policy("maglev.v3.Maglev", "table_size: 65521"));
    assertThat(maglev.lbPolicy()).isEqualTo(LbPolicy.MAGLEV);
    assertThat(maglev.lb().consistentHash().tableSize()).isEqualTo(65521);
    assertThat(cluster(policy("ring_hash.v3.RingHash", "hash_function: XX_HASH")).lbPolicy())
        .isEqualTo(LbPolicy.RING_HASH);
  }

  @Test
  void endpointHashKeysFromEnvoyLbMetadata() throws ConfigException {
    ClusterConfig c = cluster("""
        - name: backend
          lb_policy: RING_HASH
          load_assignment:
            cluster_name: backend
            endpoints:
            - lb_endpoints:
              - endpoint: {address: {socket_address: {address: 127.0.0.1, port_value: 8001}}}
                metadata: {filter_metadata: {envoy.lb: {hash_key: cache-1}}}
              - endpoint: {address: {socket_address: {address: 127.0.0.1, port_value: 8002}}}
                metadata: {filter_metadata: {envoy.lb: {hash_key: 7}}}
              - endpoint: {address: {socket_address: {address: 127.0.0.1, port_value: 8003}}}
        """);
    assertThat(c.endpoints()).extracting(ClusterConfig.Endpoint::hashKey).containsExactly("cache-1", "", "");
  }

  @Test
  void rejectionsNameTheirPath() {
    BootstrapYaml.minimal().clusters("""
        - {name: backend, lb_policy: RING_HASH, ring_hash_lb_config: {hash_function: MURMUR_HASH_2}}
        """).rejects(CLUSTER_0 + ".ring_hash_lb_config.hash_function: MURMUR_HASH_2 is not supported; only XX_HASH"
        + " (the default)");
    BootstrapYaml.minimal().clusters("""
        - {name: backend, lb_policy: RING_HASH, ring_hash_lb_config: {minimum_ring_size: 4096, maximum_ring_size: 1024}}
        """).rejects(CLUSTER_0 + ".ring_hash_lb_config.minimum_ring_size.value: minimum_ring_size (4096) must not be"
        + " greater than maximum_ring_size (1024)");
    BootstrapYaml.minimal().clusters("""
        - {name: backend, lb_policy: RING_HASH, ring_hash_lb_config: {minimum_ring_size: 0}}
        """).rejects(CLUSTER_0 + ".ring_hash_lb_config.minimum_ring_size.value: must be within [1, 8388608]");
    BootstrapYaml.minimal().clusters("""
        - {name: backend, lb_policy: ROUND_ROBIN, ring_hash_lb_config: {minimum_ring_size: 10}}
        """).rejects(CLUSTER_0 + ".ring_hash_lb_config: is only for lb_policy RING_HASH");
    BootstrapYaml.minimal().clusters("""
        - {name: backend, lb_policy: RING_HASH, maglev_lb_config: {table_size: 251}}
        """).rejects(CLUSTER_0 + ".maglev_lb_config: is only for lb_policy MAGLEV");
    BootstrapYaml.minimal().clusters("""
        - {name: backend, lb_policy: MAGLEV, maglev_lb_config: {table_size: 65536}}
        """).rejects(CLUSTER_0 + ".maglev_lb_config.table_size.value: 65536 is not a prime number of at most 5000011");
    BootstrapYaml.minimal().clusters(policy("ring_hash.v3.RingHash", "hash_function: MURMUR_HASH_2"))
        .rejects(TYPED + ".hash_function: MURMUR_HASH_2 is not supported; only XX_HASH (the default)");
    BootstrapYaml.minimal().clusters(policy("ring_hash.v3.RingHash", "hash_balance_factor: 150"))
        .rejects(TYPED + ".hash_balance_factor: hash_balance_factor is not supported yet");
    BootstrapYaml.minimal().clusters(policy("ring_hash.v3.RingHash",
            "consistent_hashing_lb_config: {use_hostname_for_hashing: true}"))
        .rejects(TYPED + ".consistent_hashing_lb_config.use_hostname_for_hashing: use_hostname_for_hashing is not"
            + " supported yet");
    BootstrapYaml.minimal().clusters(policy("maglev.v3.Maglev", "table_size: 100"))
        .rejects(TYPED + ".table_size.value: 100 is not a prime number of at most 5000011");
    BootstrapYaml.minimal().clusters(policy("maglev.v3.Maglev", "locality_weighted_lb_config: {}"))
        .rejects(TYPED + ".locality_weighted_lb_config: locality_weighted_lb_config is not supported yet");
  }

  @Test
  void maglevTableSizesArePrimes() {
    assertThat(LoadBalancingTranslator.isPrime(65537)).isTrue();
    assertThat(LoadBalancingTranslator.isPrime(5000011)).isTrue();
    assertThat(LoadBalancingTranslator.isPrime(65536)).isFalse();
    assertThat(LoadBalancingTranslator.isPrime(1)).isFalse();
  }
}
