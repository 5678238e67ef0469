package io.spillway.edge.config;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * envoy.filters.http.lua: scripts from each DataSource and the deprecated inline_code, stat_prefix
 * and clear_route_cache, LuaPerRoute on routes, and every refusal with its path (syntax errors and
 * top-level failures with Lua's message).
 */
class LuaTranslationTest {
  private static final String TYPE = "type.googleapis.com/envoy.extensions.filters.http.lua.v3.Lua";
  private static final String PER_ROUTE = "type.googleapis.com/envoy.extensions.filters.http.lua.v3.LuaPerRoute";
  private static final String FILTER =
      "static_resources.listeners[0].filter_chains[0].filters[0].typed_config.http_filters[0].typed_config";
  private static final String ON_REQUEST = "function envoy_on_request(h) h:headers():add('x', 'y') end";

  private static BootstrapYaml withFilter(String fields) {
    return BootstrapYaml.minimal().httpFilters("""
        - name: envoy.filters.http.lua
          typed_config:
            "@type": %s
        %s
        - name: envoy.filters.http.router
        """.formatted(TYPE, fields.stripIndent().indent(4).stripTrailing()));
  }

  private static LuaConfig translate(String fields) throws ConfigException {
    return withFilter(fields).translate().listeners().get(0).hcm().filter("envoy.filters.http.lua").orElseThrow()
        .settings(LuaConfig.class);
  }

  private static String refusal(BootstrapYaml yaml) {
    try {
      yaml.translate();
    } catch (ConfigException e) {
      return e.getMessage();
    }
    throw new AssertionError("accepted");
  }

  private static String refusal(String fields) {
    return refusal(withFilter(fields));
  }

  @Test
  void scriptsFromEachSourceWithTheirFunctionsAndWhetherTheyReadTheBody(@TempDir Path dir) throws Exception {
    Path file = dir.resolve("resp.lua");
    Files.writeString(file, "function envoy_on_response(h) h:headers():add('n', h:body():length()) end");
    LuaConfig c = translate("""
        default_source_code: { inline_string: "%s" }
        source_codes:
          fromfile: { filename: %s }
          empty: { inline_string: "" }
        stat_prefix: mine
        clear_route_cache: false
        """.formatted(ON_REQUEST, file));
    var d = c.defaultScript().orElseThrow();
    assertThat(d.hasOnRequest()).isTrue();
    assertThat(d.hasOnResponse()).isFalse();
    assertThat(d.requestReadsBody()).isFalse();
    var f = c.sourceCodes().get("fromfile");
    assertThat(f.hasOnRequest()).isFalse();
    assertThat(f.hasOnResponse()).isTrue();
    assertThat(f.responseReadsBody()).isTrue();
    assertThat(c.sourceCodes().get("empty").hasOnRequest()).as("an empty script, accepted as Envoy does").isFalse();
    assertThat(c.statPrefix()).isEqualTo("mine");
    assertThat(c.clearRouteCache()).isFalse();
  }

  @Test
  void theDeprecatedInlineCodeAndEnvoysDefaults() throws Exception {
    LuaConfig c = translate("inline_code: \"" + ON_REQUEST + "\"");
    assertThat(c.defaultScript().orElseThrow().hasOnRequest()).isTrue();
    assertThat(c.clearRouteCache()).as("Envoy's default").isTrue();
    assertThat(c.statPrefix()).isEmpty();
    assertThat(translate("stat_prefix: \"\"").defaultScript()).as("no script: the filter runs only where a route gives one").isEmpty();
  }

  @Test
  void aHelperOrTheOtherFunctionThatNamesBodyMakesTheCallerBuffer() throws Exception {
    var helper = translate("""
        inline_code: |
          local function size(h) return h:body():length() end
          function envoy_on_request(h) h:headers():add('n', size(h)) end
          function envoy_on_response(h) end
        """).defaultScript().orElseThrow();
    assertThat(helper.requestReadsBody()).isTrue();
    assertThat(helper.responseReadsBody()).as("conservative: the helper could be called from either").isTrue();
    var crossed = translate("""
        inline_code: |
          function envoy_on_response(h) h:trailers() end
          function envoy_on_request(h) envoy_on_response(h) end
        """).defaultScript().orElseThrow();
    assertThat(crossed.requestReadsBody()).isTrue();
    var none = translate("""
        inline_code: |
          function envoy_on_request(h) h:headers():get(':path') end
          function envoy_on_response(h) h:headers():add('x', 'y') end
        """).defaultScript().orElseThrow();
    assertThat(none.requestReadsBody()).isFalse();
    assertThat(none.responseReadsBody()).isFalse();
  }

  @Test
  void aSyntaxErrorNamesTheFieldAndGivesLuasMessage() {
    assertThat(refusal("default_source_code: { inline_string: \"function envoy_on_request(h)\\n x = = 1 end\" }"))
        .startsWith(FILTER + ".default_source_code.inline_string: the script does not compile: default_source_code:2:")
        .contains("unexpected symbol");
    assertThat(refusal("inline_code: \"function f(\""))
        .startsWith(FILTER + ".inline_code: the script does not compile: inline_code:1:");
    assertThat(refusal("source_codes: { bad: { inline_string: \"end\" } }"))
        .startsWith(FILTER + ".source_codes[\"bad\"].inline_string: the script does not compile: source_codes[bad]:1:");
  }

  @Test
  void aTopLevelThatFailsOrLoopsOrAFunctionThatIsNoneIsRefused() {
    assertThat(refusal("inline_code: \"error('boom')\""))
        .isEqualTo(FILTER + ".inline_code: the script fails when loaded: inline_code:1 boom");
    assertThat(refusal("inline_code: \"while true do end\""))
        .startsWith(FILTER + ".inline_code: the script fails when loaded: inline_code:1 instruction budget exceeded");
    assertThat(refusal("inline_code: \"io.open('/etc/passwd')\""))
        .startsWith(FILTER + ".inline_code: the script fails when loaded: inline_code:1 attempt to index");
    assertThat(refusal("inline_code: \"envoy_on_request = 3\""))
        .isEqualTo(FILTER + ".inline_code: envoy_on_request is a number, not a function");
  }

  @Test
  void otherRefusalsNameTheirField(@TempDir Path dir) {
    assertThat(refusal("inline_code: \"x = 1\"\ndefault_source_code: { inline_string: \"y = 1\" }"))
        .isEqualTo(FILTER + ".inline_code: only one of inline_code or default_source_code may be set");
    assertThat(refusal("default_source_code: { filename: " + dir.resolve("missing.lua") + " }"))
        .startsWith(FILTER + ".default_source_code.filename: cannot read");
    assertThat(refusal("default_source_code: { environment_variable: SPILLWAY_NO_SUCH_VARIABLE_FOR_LUA }"))
        .isEqualTo(FILTER + ".default_source_code.environment_variable: environment variable"
            + " SPILLWAY_NO_SUCH_VARIABLE_FOR_LUA is not set or empty");
    assertThat(refusal("default_source_code: {}"))
        .startsWith(FILTER + ".default_source_code: one of filename, inline_string, inline_bytes or"
            + " environment_variable is required");
  }

  private static BootstrapYaml withRoute(String perRoute) {
    return BootstrapYaml.minimal().routes("""
        - match: {prefix: "/"}
          route: {cluster: backend}
          typed_per_filter_config:
            lua-entry:
              "@type": %s
        %s
        """.formatted(PER_ROUTE, perRoute.stripIndent().indent(6).stripTrailing()));
  }

  private static Route route(String perRoute) throws ConfigException {
    return withRoute(perRoute).translate().listeners().get(0).hcm().routeConfig().virtualHosts().get(0).routes()
        .get(0);
  }

  @Test
  void perRouteDisabledNameOrAScriptOfItsOwn() throws Exception {
    assertThat(route("disabled: true").disabledFilters()).containsExactly("lua-entry");
    assertThat(route("name: hello").filterConfigs().get("lua-entry"))
        .isEqualTo(new LuaConfig.PerRoute(java.util.Optional.of("hello"), java.util.Optional.empty()));
    LuaConfig.PerRoute own = (LuaConfig.PerRoute) route("source_code: { inline_string: \"" + ON_REQUEST + "\" }")
        .filterConfigs().get("lua-entry");
    assertThat(own.sourceCode().orElseThrow().hasOnRequest()).isTrue();
  }

  @Test
  void perRouteRefusalsNameTheirField() {
    String at = "static_resources.listeners[0].filter_chains[0].filters[0].typed_config.route_config"
        + ".virtual_hosts[0].routes[0].typed_per_filter_config[\"lua-entry\"]";
    assertThat(refusal(withRoute("disabled: false"))).isEqualTo(at + ".disabled: must be true when set");
    assertThat(refusal(withRoute("source_code: { inline_string: \"function (\" }")))
        .startsWith(at + ".source_code.inline_string: the script does not compile: source_code:1:");
    assertThat(refusal(withRoute(""))).isEqualTo(at + ": one of disabled, name or source_code is required");
    assertThat(List.of(refusal(withRoute("name: \"\"")))).allMatch(m -> m.startsWith(at));
  }
}
