package io.spillway.edge.config;

import io.envoyproxy.envoy.config.route.v3.RouteAction;
import io.envoyproxy.envoy.extensions.filters.network.http_connection_manager.v3.HttpConnectionManager;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/**
 * {@code upgrade_configs} of the connection manager and of a route action → upgrade type (lower
 * case; Envoy compares types case-insensitively) → enabled. HTTP/1.1 upgrades and {@code CONNECT}
 * (RFC 9110 §9.3.6, RFC 9113 §8.5) are tunnelled; a route's {@code connect_config} makes the edge
 * terminate CONNECT itself (Envoy's TCP upstream), and only an empty one is supported. Custom
 * upgrade {@code filters} are refused.
 */
final class UpgradeConfigTranslator {

  private static final SupportedFields HCM_UPGRADE = SupportedFields.of(
      HttpConnectionManager.UpgradeConfig.getDescriptor(), "upgrade_type", "enabled");
  private static final SupportedFields ROUTE_UPGRADE = SupportedFields.of(
      RouteAction.UpgradeConfig.getDescriptor(), "upgrade_type", "enabled", "connect_config");
  private static final SupportedFields CONNECT_CONFIG = SupportedFields.of(
      RouteAction.UpgradeConfig.ConnectConfig.getDescriptor());
  /** The upgrade type of CONNECT requests, as {@link #connectionManager} and {@link #route} key it. */
  static final String CONNECT = "connect";

  private UpgradeConfigTranslator() {}

  static Map<String, Boolean> connectionManager(List<HttpConnectionManager.UpgradeConfig> configs, FieldPath path)
      throws ConfigException {
    Map<String, Boolean> upgrades = new LinkedHashMap<>();
    for (int i = 0; i < configs.size(); i++) {
      FieldPath entryPath = path.index(i);
      HttpConnectionManager.UpgradeConfig c = configs.get(i);
      if (c.getFiltersCount() > 0) {
        throw new ConfigException(entryPath.field("filters"),
            "filters is not supported: an upgrade runs through the connection manager's http_filters");
      }
      HCM_UPGRADE.check(c, entryPath);
      put(upgrades, c.getUpgradeType(), !c.hasEnabled() || c.getEnabled().getValue(), entryPath,
          "multiple upgrade configs with the same name");
    }
    return upgrades;
  }

  static Map<String, Boolean> route(List<RouteAction.UpgradeConfig> configs, FieldPath path) throws ConfigException {
    Map<String, Boolean> upgrades = new LinkedHashMap<>();
    for (int i = 0; i < configs.size(); i++) {
      FieldPath entryPath = path.index(i);
      RouteAction.UpgradeConfig c = configs.get(i);
      ROUTE_UPGRADE.check(c, entryPath);
      if (c.hasConnectConfig()) {
        connectConfig(c, entryPath.field("connect_config"));
      }
      put(upgrades, c.getUpgradeType(), !c.hasEnabled() || c.getEnabled().getValue(), entryPath,
          "duplicate upgrade");
    }
    return upgrades;
  }

  /**
   * Whether the route's {@code upgrade_configs} terminate CONNECT: its CONNECT entry has a
   * {@code connect_config} (validated by {@link #route}).
   */
  static boolean terminatesConnect(List<RouteAction.UpgradeConfig> configs) {
    for (RouteAction.UpgradeConfig c : configs) {
      if (c.getUpgradeType().equalsIgnoreCase(CONNECT) && c.hasConnectConfig()) {
        return true;
      }
    }
    return false;
  }

  private static void connectConfig(RouteAction.UpgradeConfig c, FieldPath path) throws ConfigException {
    if (!c.getUpgradeType().equalsIgnoreCase(CONNECT)) {
      throw new ConfigException(path, "connect_config is only for upgrade_type CONNECT, not '" + c.getUpgradeType() + "'");
    }
    RouteAction.UpgradeConfig.ConnectConfig connect = c.getConnectConfig();
    if (connect.hasProxyProtocolConfig()) {
      throw new ConfigException(path.field("proxy_protocol_config"),
          "proxy_protocol_config is not supported: a terminated CONNECT sends no PROXY protocol header");
    }
    if (connect.getAllowPost()) {
      throw new ConfigException(path.field("allow_post"),
          "allow_post is not supported: only CONNECT requests are terminated");
    }
    CONNECT_CONFIG.check(connect, path);
  }

  private static void put(Map<String, Boolean> upgrades, String type, boolean enabled, FieldPath path,
      String duplicate) throws ConfigException {
    FieldPath typePath = path.field("upgrade_type");
    if (type.isEmpty()) {
      throw new ConfigException(typePath, "upgrade_type is required");
    }
    for (int i = 0; i < type.length(); i++) {
      char c = type.charAt(i);
      if (c <= ' ' || c >= 127 || c == ',') {
        throw new ConfigException(typePath, "\"" + type + "\" is not a valid upgrade token");
      }
    }
    String key = type.toLowerCase(Locale.ROOT);
    if (upgrades.putIfAbsent(key, enabled) != null) {
      throw new ConfigException(typePath, duplicate + ": '" + type + "'");
    }
  }
}
