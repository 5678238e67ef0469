package io.spillway.edge.config;

import io.envoyproxy.envoy.config.core.v3.AggregatedConfigSource;
import io.envoyproxy.envoy.config.core.v3.ApiVersion;
import io.envoyproxy.envoy.config.core.v3.ConfigSource;

/**
 * The {@code ConfigSource} of a resource that arrives dynamically (an EDS cluster's endpoints, an
 * HCM's RDS routes): the only source the edge supports is the bootstrap's ADS stream, written
 * {@code ads: {}}.
 */
final class ConfigSources {
  private static final SupportedFields CONFIG_SOURCE = SupportedFields.of(ConfigSource.getDescriptor(),
      "ads", "resource_api_version");
  private static final SupportedFields ADS = SupportedFields.of(AggregatedConfigSource.getDescriptor());

  private ConfigSources() {}

  /** Accepts {@code ads: {}} (with {@code resource_api_version} V3 or unset) and nothing else. */
  static void requireAds(boolean present, ConfigSource source, FieldPath path) throws ConfigException {
    if (!present) {
      throw new ConfigException(path, "is required (ads: {})");
    }
    CONFIG_SOURCE.check(source, path);
    if (!source.hasAds()) {
      throw new ConfigException(path, "only ads: {} is supported (resources come over the bootstrap's ADS stream)");
    }
    ADS.check(source.getAds(), path.field("ads"));
    if (source.getResourceApiVersion() != ApiVersion.AUTO && source.getResourceApiVersion() != ApiVersion.V3) {
      throw new ConfigException(path.field("resource_api_version"), source.getResourceApiVersion()
          + " is not supported (V3 only)");
    }
  }
}
