package io.spillway.edge.config;

import io.envoyproxy.envoy.config.core.v3.DataSource;
import io.envoyproxy.envoy.extensions.filters.http.lua.v3.Lua;
import io.envoyproxy.envoy.extensions.filters.http.lua.v3.LuaPerRoute;
import io.spillway.edge.lua.LuaScript;
import io.spillway.edge.lua.LuaScriptException;
import java.io.IOException;
import java.util.Map;
import java.util.Optional;
import java.util.TreeMap;

/**
 * {@code envoy.filters.http.lua} ({@code Lua}) and its per-route {@code LuaPerRoute} into
 * {@link LuaConfig}: each script is read from its DataSource, compiled and its top level run once
 * here, so that a script that does not compile or fails when loaded is a configuration error
 * naming its field and Lua's message. Every field of both messages is supported.
 */
final class LuaTranslator {
  private static final SupportedFields LUA = SupportedFields.of(Lua.getDescriptor(), "inline_code", "source_codes",
      "default_source_code", "stat_prefix", "clear_route_cache");
  private static final SupportedFields PER_ROUTE = SupportedFields.of(LuaPerRoute.getDescriptor(), "disabled",
      "name", "source_code");

  private LuaTranslator() {}

  @SuppressWarnings("deprecation") // inline_code: deprecated, still read by Envoy
  static LuaConfig translate(Lua lua, FieldPath path, DataSources sources) throws ConfigException {
    LUA.check(lua, path);
    Optional<LuaScript> defaultScript = Optional.empty();
    if (lua.hasDefaultSourceCode()) {
      if (!lua.getInlineCode().isEmpty()) {
        throw new ConfigException(path.field("inline_code"),
            "only one of inline_code or default_source_code may be set");
      }
      defaultScript = Optional.of(script(lua.getDefaultSourceCode(), path.field("default_source_code"),
          "default_source_code", sources));
    } else if (!lua.getInlineCode().isEmpty()) {
      defaultScript = Optional.of(compile(lua.getInlineCode().getBytes(java.nio.charset.StandardCharsets.UTF_8),
          path.field("inline_code"), "inline_code"));
    }
    Map<String, LuaScript> named = new TreeMap<>();
    for (Map.Entry<String, DataSource> e : new TreeMap<>(lua.getSourceCodesMap()).entrySet()) {
      named.put(e.getKey(), script(e.getValue(), path.field("source_codes").key(e.getKey()),
          "source_codes[" + e.getKey() + "]", sources));
    }
    boolean clearRouteCache = !lua.hasClearRouteCache() || lua.getClearRouteCache().getValue();
    return new LuaConfig(defaultScript, named, lua.getStatPrefix(), clearRouteCache);
  }

  static LuaConfig translate(Lua lua, FieldPath path) throws ConfigException {
    return translate(lua, path, DataSources.system());
  }

  /**
   * A route's {@code LuaPerRoute}: {@link Boolean#TRUE} for {@code disabled} (the route turns the
   * filter off), else the script it picks.
   */
  static Object perRoute(LuaPerRoute p, FieldPath path) throws ConfigException {
    PER_ROUTE.check(p, path);
    return switch (p.getOverrideCase()) {
      case DISABLED -> {
        if (!p.getDisabled()) {
          throw new ConfigException(path.field("disabled"), "must be true when set");
        }
        yield Boolean.TRUE;
      }
      case NAME -> {
        if (p.getName().isEmpty()) {
          throw new ConfigException(path.field("name"), "must not be empty");
        }
        yield new LuaConfig.PerRoute(Optional.of(p.getName()), Optional.empty());
      }
      case SOURCE_CODE -> new LuaConfig.PerRoute(Optional.empty(), Optional.of(
          script(p.getSourceCode(), path.field("source_code"), "source_code", DataSources.system())));
      case OVERRIDE_NOT_SET -> throw new ConfigException(path, "one of disabled, name or source_code is required");
    };
  }

  /** A script from a DataSource; an empty inline string is a script that does nothing (Envoy reads it). */
  private static LuaScript script(DataSource source, FieldPath path, String chunkName, DataSources sources)
      throws ConfigException {
    if (source.getSpecifierCase() == DataSource.SpecifierCase.INLINE_STRING && source.getInlineString().isEmpty()) {
      return compile(new byte[0], path.field("inline_string"), chunkName);
    }
    PemData data = sources.read(source, path);
    byte[] bytes;
    try (var in = data.open()) {
      bytes = in.readAllBytes();
    } catch (IOException e) {
      throw new ConfigException(path, "cannot read " + data + ": " + e.getMessage(), e);
    }
    return compile(bytes, path.field(source.getSpecifierCase().name().toLowerCase(java.util.Locale.ROOT)), chunkName);
  }

  private static LuaScript compile(byte[] source, FieldPath path, String chunkName) throws ConfigException {
    try {
      return LuaScript.compile(source, chunkName);
    } catch (LuaScriptException e) {
      throw new ConfigException(path, e.getMessage());
    }
  }
}
