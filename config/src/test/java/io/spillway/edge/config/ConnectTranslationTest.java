package io.spillway.edge.config;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.Map;
import org.junit.jupiter.api.Test;

/** CONNECT in the configuration: upgrade_configs, connect_matcher and connect_config. */
class ConnectTranslationTest {

  private static final String HCM = BootstrapYaml.HCM;
  private static final String ROUTE_ACTION = BootstrapYaml.ROUTE + ".route";

  private static final String TERMINATING_ROUTES = """
      - match: {connect_matcher: {}}
        route:
          cluster: backend
          upgrade_configs: [{upgrade_type: CONNECT, connect_config: {}}]
      - match: {prefix: "/"}
        route: {cluster: backend}
      """;

  @Test
  void connectionManagerAcceptsConnectAsAnUpgradeType() throws ConfigException {
    HttpConnectionManagerConfig hcm = BootstrapYaml.minimal().hcm("upgrade_configs: [{upgrade_type: CONNECT}]")
        .routes(TERMINATING_ROUTES).translate().listeners().get(0).hcm();

    assertThat(hcm.upgradeConfigs()).isEqualTo(Map.of("connect", true));
    assertThat(hcm.upgradeAllowed("CONNECT", Map.of())).isTrue();
  }

  @Test
  void connectMatcherAndConnectConfigTranslate() throws ConfigException {
    HttpConnectionManagerConfig hcm = BootstrapYaml.minimal().routes(TERMINATING_ROUTES).translate()
        .listeners().get(0).hcm();

    Route connect = hcm.routeConfig().virtualHosts().get(0).routes().get(0);
    Route plain = hcm.routeConfig().virtualHosts().get(0).routes().get(1);
    assertThat(connect.match().path()).isInstanceOf(Route.PathMatch.Connect.class);
    Route.RouteAction action = (Route.RouteAction) connect.action();
    assertThat(action.terminatesConnect()).isTrue();
    assertThat(action.upgradeConfigs()).isEqualTo(Map.of("connect", true));
    assertThat(((Route.RouteAction) plain.action()).terminatesConnect()).isFalse();
  }

  @Test
  void connectMatcherMayAnswerDirectly() {
    BootstrapYaml.minimal().routes("""
        - match: {connect_matcher: {}}
          direct_response: {status: 403}
        """).translateOk();
  }

  @Test
  void withoutConnectConfigTheConnectIsForwarded() throws ConfigException {
    HttpConnectionManagerConfig hcm = BootstrapYaml.minimal().hcm("upgrade_configs: [{upgrade_type: CONNECT}]")
        .routes("""
            - match: {connect_matcher: {}}
              route: {cluster: backend}
            """).translate().listeners().get(0).hcm();

    Route.RouteAction action = (Route.RouteAction) hcm.routeConfig().virtualHosts().get(0).routes().get(0).action();
    assertThat(action.terminatesConnect()).isFalse();
    assertThat(hcm.upgradeAllowed("connect", action.upgradeConfigs())).isTrue();
  }

  @Test
  void connectConfigFieldsThatAreNotBuiltAreRejected() {
    BootstrapYaml.minimal().routes("""
        - match: {connect_matcher: {}}
          route:
            cluster: backend
            upgrade_configs: [{upgrade_type: CONNECT, connect_config: {allow_post: true}}]
        """).rejects(ROUTE_ACTION + ".upgrade_configs[0].connect_config.allow_post: allow_post is not supported:"
            + " only CONNECT requests are terminated");
    BootstrapYaml.minimal().routes("""
        - match: {connect_matcher: {}}
          route:
            cluster: backend
            upgrade_configs:
            - upgrade_type: CONNECT
              connect_config: {proxy_protocol_config: {version: V1}}
        """).rejects(ROUTE_ACTION + ".upgrade_configs[0].connect_config.proxy_protocol_config: proxy_protocol_config"
            + " is not supported: a terminated CONNECT sends no PROXY protocol header");
    BootstrapYaml.minimal().routes("""
        - match: {prefix: "/"}
          route:
            cluster: backend
            upgrade_configs: [{upgrade_type: websocket, connect_config: {}}]
        """).rejects(ROUTE_ACTION + ".upgrade_configs[0].connect_config: connect_config is only for upgrade_type"
            + " CONNECT, not 'websocket'");
  }
}
