package io.spillway.edge.config;

import java.util.Objects;

/**
 * One entry of a connection manager's {@code http_filters}: which extension it is, the name it
 * was given (stats and routes' {@code typed_per_filter_config} refer to it) and its translated
 * settings. Each filter's settings are a record of its own; the registry of filters hands them
 * to that filter's factory.
 *
 * @param extension the extension's canonical name, e.g. {@code envoy.filters.http.router}
 * @param name the entry's {@code name}, or the extension's name when it had none
 * @param settings the translated {@code typed_config}
 */
public record HttpFilterConfig(String extension, String name, Settings settings) {
  public HttpFilterConfig {
    Objects.requireNonNull(extension, "extension");
    Objects.requireNonNull(name, "name");
    Objects.requireNonNull(settings, "settings");
  }

  /** What a filter's {@code typed_config} translates to. */
  public interface Settings {}

  /** The settings of a filter that takes none (the router's options are all Envoy's defaults). */
  public enum NoSettings implements Settings { INSTANCE }

  /** The buffer filter: bodies above {@code maxRequestBytes} get 413. */
  public record Buffer(long maxRequestBytes) implements Settings {}

  /** The router, last in every chain. */
  public static HttpFilterConfig router() {
    return new HttpFilterConfig(ExtensionRegistry.ROUTER, ExtensionRegistry.ROUTER, NoSettings.INSTANCE);
  }

  /** The settings, as the filter's own type; a mismatch is a programming error. */
  public <T extends Settings> T settings(Class<T> type) {
    return type.cast(settings);
  }
}
