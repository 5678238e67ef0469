package io.spillway.edge.config;

import io.envoyproxy.envoy.config.route.v3.RouteAction;
import io.envoyproxy.envoy.extensions.filters.network.http_connection_manager.v3.HttpConnectionManager;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/**
 * {@code upgrade_configs} of the connection manager and of a route action → upgrade type (lower
 * case; Envoy compares types case-insensitively) → enabled. Only HTTP/1.1 upgrades are tunnelled:
 * a {@code CONNECT} type, custom upgrade {@code filters} and {@code connect_config} are refused.
 */
final class UpgradeConfigTranslator {

  private static final SupportedFields HCM_UPGRADE = SupportedFields.of(
      HttpConnectionManager.UpgradeConfig.getDescriptor(), "upgrade_type", "enabled");
  private static final SupportedFields ROUTE_UPGRADE = SupportedFields.of(
      RouteAction.UpgradeConfig.getDescriptor(), "upgrade_type", "enabled");

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
      if (c.hasConnectConfig()) {
        throw new ConfigException(entryPath.field("connect_config"),
            "connect_config is not supported: CONNECT is not proxied");
      }
      ROUTE_UPGRADE.check(c, entryPath);
      put(upgrades, c.getUpgradeType(), !c.hasEnabled() || c.getEnabled().getValue(), entryPath,
          "duplicate upgrade");
    }
    return upgrades;
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
    if (key.equals("connect")) {
      throw new ConfigException(typePath, "CONNECT is not supported (only HTTP/1.1 Upgrade, such as websocket)");
    }
    if (upgrades.putIfAbsent(key, enabled) != null) {
      throw new ConfigException(typePath, duplicate + ": '" + type + "'");
    }
  }
}
