package io.spillway.edge.config;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.Map;
import org.junit.jupiter.api.Test;

class UpgradeConfigTranslationTest {

  private static final String HCM = BootstrapYaml.HCM;
  private static final String ROUTE_ACTION = BootstrapYaml.ROUTE + ".route";

  private static HttpConnectionManagerConfig hcm(String hcmYaml, String routesYaml) throws ConfigException {
    return BootstrapYaml.minimal().hcm(hcmYaml).routes(routesYaml).translate().listeners().get(0).hcm();
  }

  private static Route.RouteAction action(HttpConnectionManagerConfig hcm, int route) {
    return (Route.RouteAction) hcm.routeConfig().virtualHosts().get(0).routes().get(route).action();
  }

  @Test
  void connectionManagerUpgradeTypesAreCaseInsensitiveAndEnabledByDefault() throws ConfigException {
    HttpConnectionManagerConfig hcm = hcm("""
        upgrade_configs:
        - upgrade_type: WebSocket
        - {upgrade_type: spdy/3.1, enabled: false}
        """, """
        - match: {prefix: "/"}
          route: {cluster: backend}
        """);

    assertThat(hcm.upgradeConfigs()).isEqualTo(Map.of("websocket", true, "spdy/3.1", false));
    assertThat(hcm.upgradeAllowed("websocket", Map.of())).isTrue();
    assertThat(hcm.upgradeAllowed("WEBSOCKET", Map.of())).isTrue();
    assertThat(hcm.upgradeAllowed("spdy/3.1", Map.of())).isFalse();
    assertThat(hcm.upgradeAllowed("h2c", Map.of())).isFalse();
    assertThat(BootstrapYaml.minimal().translate().listeners().get(0).hcm().upgradeConfigs()).isEmpty();
  }

  @Test
  void routeUpgradeConfigsOverrideTheConnectionManagerAsEnvoysTableSays() throws ConfigException {
    HttpConnectionManagerConfig hcm = hcm("""
        upgrade_configs:
        - upgrade_type: websocket
        - {upgrade_type: custom, enabled: false}
        """, """
        - match: {prefix: "/off"}
          route:
            cluster: backend
            upgrade_configs: [{upgrade_type: WEBSOCKET, enabled: false}]
        - match: {prefix: "/on"}
          route:
            cluster: backend
            upgrade_configs: [{upgrade_type: custom}, {upgrade_type: other, enabled: true}]
        - match: {prefix: "/"}
          route: {cluster: backend}
        """);

    Route.RouteAction off = action(hcm, 0);
    Route.RouteAction on = action(hcm, 1);
    Route.RouteAction plain = action(hcm, 2);
    assertThat(off.upgradeConfigs()).isEqualTo(Map.of("websocket", false));
    assertThat(on.upgradeConfigs()).isEqualTo(Map.of("custom", true, "other", true));
    assertThat(plain.upgradeConfigs()).isEmpty();
    // HCM enabled, route disabled → off; HCM disabled, route enabled → on; route silent → the HCM's.
    assertThat(hcm.upgradeAllowed("websocket", off.upgradeConfigs())).isFalse();
    assertThat(hcm.upgradeAllowed("custom", on.upgradeConfigs())).isTrue();
    assertThat(hcm.upgradeAllowed("websocket", on.upgradeConfigs())).isTrue();
    assertThat(hcm.upgradeAllowed("custom", plain.upgradeConfigs())).isFalse();
    // A route may enable a type the connection manager does not list at all (Envoy's createUpgradeFilterChain).
    assertThat(hcm.upgradeAllowed("other", on.upgradeConfigs())).isTrue();
    assertThat(hcm.upgradeAllowed("other", plain.upgradeConfigs())).isFalse();
  }

  @Test
  void rejectsWhatIsNotImplementedWithItsPath() {
    String router = """
        - name: envoy.filters.http.router
          typed_config: {"@type": type.googleapis.com/envoy.extensions.filters.http.router.v3.Router}""";
    BootstrapYaml.minimal().hcm("upgrade_configs:\n- upgrade_type: websocket\n  filters:\n" + router.indent(2))
        .rejects(HCM + ".upgrade_configs[0].filters: filters is not supported: an upgrade runs through the"
            + " connection manager's http_filters");
    BootstrapYaml.minimal().hcm("upgrade_configs: [{upgrade_type: websocket, filters: []}]").translateOk();
  }

  @Test
  void rejectsMissingInvalidAndDuplicateTypes() {
    BootstrapYaml.minimal().hcm("upgrade_configs: [{enabled: true}]")
        .rejects(HCM + ".upgrade_configs[0].upgrade_type: upgrade_type is required");
    BootstrapYaml.minimal().hcm("upgrade_configs: [{upgrade_type: \"web socket\"}]")
        .rejects(HCM + ".upgrade_configs[0].upgrade_type: \"web socket\" is not a valid upgrade token");
    BootstrapYaml.minimal().hcm("upgrade_configs: [{upgrade_type: websocket}, {upgrade_type: WebSocket}]")
        .rejects(HCM + ".upgrade_configs[1].upgrade_type: multiple upgrade configs with the same name: 'WebSocket'");
    BootstrapYaml.minimal().routes("""
        - match: {prefix: "/"}
          route: {cluster: backend, upgrade_configs: [{upgrade_type: ""}]}
        """).rejects(ROUTE_ACTION + ".upgrade_configs[0].upgrade_type: upgrade_type is required");
    BootstrapYaml.minimal().routes("""
        - match: {prefix: "/"}
          route: {cluster: backend, upgrade_configs: [{upgrade_type: websocket}, {upgrade_type: websocket, enabled: false}]}
        """).rejects(ROUTE_ACTION + ".upgrade_configs[1].upgrade_type: duplicate upgrade: 'websocket'");
  }
}
