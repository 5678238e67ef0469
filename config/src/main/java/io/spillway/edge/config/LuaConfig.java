package io.spillway.edge.config;

import io.spillway.edge.lua.LuaScript;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;

/**
 * {@code envoy.filters.http.lua}: its scripts, compiled when the configuration was translated.
 *
 * @param defaultScript {@code default_source_code} (or the deprecated {@code inline_code}): run for
 *     every request unless a route says otherwise; empty when there is none
 * @param sourceCodes {@code source_codes}: named scripts a route's {@code LuaPerRoute.name} picks
 * @param statPrefix {@code stat_prefix}: the filter's stats are {@code http.<hcm prefix>.lua.<this>.},
 *     or {@code http.<hcm prefix>.lua.} when empty
 * @param clearRouteCache {@code clear_route_cache} (default true): the route is matched again when
 *     the script changed the request's headers
 */
public record LuaConfig(Optional<LuaScript> defaultScript, Map<String, LuaScript> sourceCodes, String statPrefix,
    boolean clearRouteCache) implements HttpFilterConfig.Settings {

  public LuaConfig {
    Objects.requireNonNull(defaultScript, "defaultScript");
    sourceCodes = Map.copyOf(sourceCodes);
    Objects.requireNonNull(statPrefix, "statPrefix");
  }

  /**
   * A route's {@code LuaPerRoute} that picks a script ({@code disabled} becomes the route's
   * turning the filter off, as for any filter): exactly one of the two is present.
   *
   * @param name a script of the filter's {@code source_codes}, by name
   * @param sourceCode the route's own script
   */
  public record PerRoute(Optional<String> name, Optional<LuaScript> sourceCode) implements RouteFilterConfig {
    public PerRoute {
      if (name.isPresent() == sourceCode.isPresent()) {
        throw new IllegalArgumentException("exactly one of name and sourceCode");
      }
    }
  }
}
