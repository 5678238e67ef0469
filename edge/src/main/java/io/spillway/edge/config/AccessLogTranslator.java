package io.spillway.edge.config;

import io.envoyproxy.envoy.config.accesslog.v3.AccessLog;
import io.spillway.edge.config.ExtensionRegistry.Category;
import java.util.List;

/**
 * Access logs (admin, listener and connection manager {@code access_log}) are accepted so that
 * Envoy bootstraps load, and not yet acted upon: a later issue implements them. Their logger types
 * are still checked against the registry, so a wrong {@code @type} is reported now.
 */
final class AccessLogTranslator {

  private static final SupportedFields ACCESS_LOG = SupportedFields.of(AccessLog.getDescriptor(),
      "name", "filter", "typed_config");

  private AccessLogTranslator() {}

  static void checkAccepted(List<AccessLog> logs, FieldPath path, ExtensionRegistry registry) throws ConfigException {
    for (int i = 0; i < logs.size(); i++) {
      FieldPath logPath = path.index(i);
      AccessLog log = logs.get(i);
      ACCESS_LOG.check(log, logPath);
      if (!log.hasTypedConfig()) {
        throw new ConfigException(logPath.field("typed_config"), "typed_config is required");
      }
      registry.resolve(log.getTypedConfig(), Category.ACCESS_LOGGER, logPath.field("typed_config"));
    }
  }
}
