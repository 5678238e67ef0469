package io.spillway.central.resources;

import static org.assertj.core.api.Assertions.assertThat;

import com.google.protobuf.Message;
import io.spillway.edge.config.BootstrapLoader;
import java.util.EnumMap;
import java.util.Map;
import java.util.TreeMap;
import org.junit.jupiter.api.Test;

/**
 * API listeners for proxyless gRPC clients ({@code api_listener}, no address): checked by their
 * structure instead of the edge's translator (see {@link ResourceValidator}).
 */
class ApiListenerValidationTest {

  private static final String HCM = "type.googleapis.com/envoy.extensions.filters.network.http_connection_manager.v3.HttpConnectionManager";
  private static final String ROUTER = "{name: envoy.filters.http.router, typed_config: {'@type': type.googleapis.com/envoy.extensions.filters.http.router.v3.Router}}";

  private final ResourceCodec codec = new ResourceCodec();
  private final ResourceValidator validator = new ResourceValidator(codec.registry());

  private ResourceSet listener(String name, String hcmBody) throws Exception {
    String yaml = "name: " + name + "\napi_listener: {api_listener: {'@type': " + HCM + ", " + hcmBody + "}}\n";
    Message parsed = codec.parse(yaml, BootstrapLoader.Format.YAML, ResourceType.LISTENERS);
    Map<ResourceType, Map<String, Message>> byType = new EnumMap<>(ResourceType.class);
    byType.computeIfAbsent(ResourceType.LISTENERS, t -> new TreeMap<>()).put(name, parsed);
    return new ResourceSet(byType);
  }

  @Test
  void rdsWithTheRouterLastPasses() throws Exception {
    ResourceSet set = listener("greeter", "rds: {route_config_name: r, config_source: {ads: {}}}, http_filters: [" + ROUTER + "]");
    assertThat(validator.check(set, ResourceType.LISTENERS, "greeter")).isEmpty();
    assertThat(validator.check(set, null, null)).isEmpty();
  }

  @Test
  void twoApiListenersHaveNoAddressToShare() throws Exception {
    ResourceSet a = listener("a", "rds: {route_config_name: r, config_source: {ads: {}}}, http_filters: [" + ROUTER + "]");
    ResourceSet b = listener("b", "rds: {route_config_name: r, config_source: {ads: {}}}, http_filters: [" + ROUTER + "]");
    Map<ResourceType, Map<String, Message>> both = new EnumMap<>(ResourceType.class);
    both.put(ResourceType.LISTENERS, new TreeMap<>(Map.of("a", a.of(ResourceType.LISTENERS).get("a"),
        "b", b.of(ResourceType.LISTENERS).get("b"))));
    assertThat(validator.check(new ResourceSet(both), ResourceType.LISTENERS, "a")).isEmpty();
  }

  @Test
  void theRouterMustBeLast() throws Exception {
    ResourceSet set = listener("greeter", "rds: {route_config_name: r, config_source: {ads: {}}}, http_filters: []");
    assertThat(validator.check(set, ResourceType.LISTENERS, "greeter"))
        .hasValueSatisfying(m -> assertThat(m).startsWith("listener \"greeter\".api_listener.api_listener.http_filters: the last filter must be the router"));
  }

  @Test
  void routesAreRequired() throws Exception {
    ResourceSet set = listener("greeter", "http_filters: [" + ROUTER + "]");
    assertThat(validator.check(set, ResourceType.LISTENERS, "greeter"))
        .hasValue("listener \"greeter\".api_listener.api_listener: rds or route_config is required");
  }

  @Test
  void anInlineRouteConfigIsCheckedByTheTranslator() throws Exception {
    ResourceSet set = listener("greeter", "route_config: {name: r, validate_clusters: true, virtual_hosts: [{name: v, domains: ['*'],"
        + " routes: [{match: {prefix: '/'}, route: {cluster: missing}}]}]}, http_filters: [" + ROUTER + "]");
    assertThat(validator.check(set, ResourceType.LISTENERS, "greeter")).hasValueSatisfying(m ->
        assertThat(m).startsWith("listener \"greeter\".api_listener.api_listener.route_config: ").contains("missing"));
  }
}
