package io.spillway.central.resources;

import static org.assertj.core.api.Assertions.assertThat;

import com.google.protobuf.Message;
import io.spillway.edge.config.BootstrapLoader;
import java.util.EnumMap;
import java.util.Map;
import java.util.TreeMap;
import org.junit.jupiter.api.Test;

/** Validation with the edge's translator, alone and across the resources one edge receives. */
class ResourceValidatorTest {

  private final ResourceCodec codec = new ResourceCodec();
  private final ResourceValidator validator = new ResourceValidator(codec.registry());

  private Message parse(ResourceType type, String yaml) throws Exception {
    return codec.parse(yaml, BootstrapLoader.Format.YAML, type);
  }

  private ResourceSet set(Object... typeNameYaml) throws Exception {
    Map<ResourceType, Map<String, Message>> byType = new EnumMap<>(ResourceType.class);
    for (int i = 0; i < typeNameYaml.length; i += 3) {
      ResourceType type = (ResourceType) typeNameYaml[i];
      byType.computeIfAbsent(type, t -> new TreeMap<>()).put((String) typeNameYaml[i + 1], parse(type, (String) typeNameYaml[i + 2]));
    }
    return new ResourceSet(byType);
  }

  @Test
  void aConsistentSetPasses() throws Exception {
    ResourceSet set = set(ResourceType.CLUSTERS, "backend", Fixtures.cluster("backend"),
        ResourceType.CLUSTERS, "eds", Fixtures.edsCluster("eds"),
        ResourceType.ENDPOINTS, "eds", Fixtures.endpoints("eds", "10.0.0.1", 80),
        ResourceType.LISTENERS, "ingress", Fixtures.listener("ingress", 10000, "backend"),
        ResourceType.ROUTES, "main", Fixtures.routes("main", "eds", true));
    assertThat(validator.check(set, ResourceType.LISTENERS, "ingress")).isEmpty();
  }

  @Test
  void theTranslatorsMessageNamesResourceAndField() throws Exception {
    ResourceSet set = set(ResourceType.CLUSTERS, "backend", Fixtures.cluster("backend") + "lb_policy: CLUSTER_PROVIDED\n");
    assertThat(validator.check(set, ResourceType.CLUSTERS, "backend"))
        .hasValue("cluster \"backend\".lb_policy: CLUSTER_PROVIDED is not supported");
  }

  @Test
  void anInlineRouteMustNameAClusterOfTheSameSet() throws Exception {
    ResourceSet set = set(ResourceType.LISTENERS, "ingress", Fixtures.listener("ingress", 10000, "missing"));
    assertThat(validator.check(set, ResourceType.LISTENERS, "ingress")).hasValueSatisfying(m ->
        assertThat(m).startsWith("listener \"ingress\".").contains("missing"));
  }

  @Test
  void routesCheckClustersOnlyWhenTheyAsk() throws Exception {
    assertThat(validator.check(set(ResourceType.ROUTES, "main", Fixtures.routes("main", "missing", false)), null, null)).isEmpty();
    assertThat(validator.check(set(ResourceType.ROUTES, "main", Fixtures.routes("main", "missing", true)), ResourceType.ROUTES, "main"))
        .hasValueSatisfying(m -> assertThat(m).startsWith("route_configuration \"main\".").contains("missing"));
  }

  @Test
  void twoListenersCannotShareAnAddress() throws Exception {
    ResourceSet set = set(ResourceType.CLUSTERS, "backend", Fixtures.cluster("backend"),
        ResourceType.LISTENERS, "a", Fixtures.listener("a", 10000, "backend"),
        ResourceType.LISTENERS, "b", Fixtures.listener("b", 10000, "backend"));
    assertThat(validator.check(set, ResourceType.LISTENERS, "a"))
        .hasValue("listener \"a\".address: 0.0.0.0:10000 is already the address of listener \"b\"");
    assertThat(validator.check(set, ResourceType.LISTENERS, "b"))
        .hasValue("listener \"b\".address: 0.0.0.0:10000 is already the address of listener \"a\"");
  }

  @Test
  void edsEndpointsMustBeIpAddresses() throws Exception {
    ResourceSet set = set(ResourceType.ENDPOINTS, "eds", Fixtures.endpoints("eds", "backend.example", 80));
    assertThat(validator.check(set, ResourceType.ENDPOINTS, "eds")).hasValueSatisfying(m ->
        assertThat(m).startsWith("cluster_load_assignment \"eds\".endpoints[0].lb_endpoints[0].endpoint.address"));
  }

  @Test
  void yamlAndJsonStoreTheSameCanonicalJson() throws Exception {
    Message fromYaml = parse(ResourceType.CLUSTERS, Fixtures.cluster("backend"));
    String canonical = codec.print(fromYaml);
    Message fromJson = codec.parse(canonical, BootstrapLoader.Format.JSON, ResourceType.CLUSTERS);
    assertThat(codec.print(fromJson)).isEqualTo(canonical);
    assertThat(canonical).contains("\"connect_timeout\":\"1s\"");
    assertThat(codec.parseStored(canonical, ResourceType.CLUSTERS)).isEqualTo(fromYaml);
  }
}
