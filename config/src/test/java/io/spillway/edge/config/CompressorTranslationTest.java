package io.spillway.edge.config;

import static io.spillway.edge.config.BootstrapYaml.HCM;
import static io.spillway.edge.config.BootstrapYaml.ROUTE;
import static org.assertj.core.api.Assertions.assertThat;

import java.util.List;
import java.util.Optional;
import java.util.Set;
import org.junit.jupiter.api.Test;

/**
 * envoy.filters.http.compressor: the filter's fields and defaults (response direction, the
 * deprecated top-level fields, the gzip, zstd and brotli libraries), several compressors in one chain,
 * CompressorPerRoute, and every rejection with its path.
 */
class CompressorTranslationTest {

  private static final String NAME = "envoy.filters.http.compressor";
  private static final String CONFIG = HCM + ".http_filters[0].typed_config";
  private static final String TYPE = "type.googleapis.com/envoy.extensions.filters.http.compressor.v3.Compressor";
  private static final String GZIP = "type.googleapis.com/envoy.extensions.compression.gzip.compressor.v3.Gzip";
  private static final String ZSTD = "type.googleapis.com/envoy.extensions.compression.zstd.compressor.v3.Zstd";
  private static final String BROTLI = "type.googleapis.com/envoy.extensions.compression.brotli.compressor.v3.Brotli";
  private static final String PER_ROUTE =
      "type.googleapis.com/envoy.extensions.filters.http.compressor.v3.CompressorPerRoute";
  private static final String ROUTER = """
      - name: envoy.filters.http.router
        typed_config:
          "@type": type.googleapis.com/envoy.extensions.filters.http.router.v3.Router
      """;
  private static final String GZIP_LIBRARY = """
      compressor_library:
        name: text_optimized
        typed_config:
          "@type": %s
      """.formatted(GZIP);

  /** One compressor filter entry (these Compressor fields, at column 0). */
  private static String entry(String name, String fields) {
    return """
        - name: %s
          typed_config:
            "@type": %s
        %s""".formatted(name, TYPE, fields.indent(4));
  }

  private static BootstrapYaml withFilter(String fields) {
    return BootstrapYaml.minimal().httpFilters(entry(NAME, fields) + ROUTER);
  }

  private static CompressorConfig translate(String fields) throws ConfigException {
    return withFilter(fields).translate().listeners().get(0).hcm().filter(NAME).orElseThrow()
        .settings(CompressorConfig.class);
  }

  @Test
  void takesEnvoysDefaults() throws ConfigException {
    CompressorConfig c = translate(GZIP_LIBRARY);
    assertThat(c.libraryName()).isEqualTo("text_optimized");
    assertThat(c.encoding()).isEqualTo("gzip");
    assertThat(c.library()).isEqualTo(new CompressorConfig.Gzip(-1, CompressorConfig.GzipStrategy.DEFAULT, 5, 12,
        4096));
    assertThat(c.chooseFirst()).isFalse();
    CompressorConfig.Response r = c.response();
    assertThat(r.enabled()).isEqualTo(RuntimeFlag.ON);
    assertThat(r.minContentLength()).isEqualTo(30);
    assertThat(r.contentTypes()).containsExactlyInAnyOrderElementsOf(CompressorConfig.DEFAULT_CONTENT_TYPES);
    assertThat(r.contentTypes()).hasSize(20).contains("application/json", "text/html", "image/svg+xml");
    assertThat(r.disableOnEtag()).isFalse();
    assertThat(r.removeAcceptEncoding()).isFalse();
    assertThat(r.uncompressibleStatuses()).isEmpty();
    assertThat(r.statsUnderResponse()).isFalse();
  }

  @Test
  void readsTheResponseDirection() throws ConfigException {
    CompressorConfig c = translate("""
        response_direction_config:
          common_config:
            enabled: {default_value: false, runtime_key: response_compressor_enabled}
            min_content_length: 100
            content_type: [Text/HTML, " application/json "]
          disable_on_etag_header: true
          remove_accept_encoding_header: true
          uncompressible_response_codes: [206, 404]
        choose_first: true
        """ + GZIP_LIBRARY);
    CompressorConfig.Response r = c.response();
    assertThat(r).isEqualTo(new CompressorConfig.Response(new RuntimeFlag("response_compressor_enabled", false), 100,
        Set.of("text/html", "application/json"), true, true, Set.of(206, 404), true));
    assertThat(c.chooseFirst()).isTrue();
  }

  @Test
  void anEmptyResponseDirectionStillMovesTheStatsUnderResponse() throws ConfigException {
    CompressorConfig.Response r = translate("response_direction_config: {}\n" + GZIP_LIBRARY).response();
    assertThat(r.statsUnderResponse()).isTrue();
    assertThat(r.enabled()).isEqualTo(RuntimeFlag.ON);
    assertThat(r.minContentLength()).isEqualTo(30); // 0 / unset: Envoy's 30
  }

  @Test
  void readsTheDeprecatedTopLevelFieldsWithoutAResponseDirection() throws ConfigException {
    CompressorConfig.Response r = translate("""
        content_length: 100
        content_type: [text/html, application/json]
        disable_on_etag_header: true
        remove_accept_encoding_header: true
        runtime_enabled: {default_value: false, runtime_key: compressor_enabled}
        """ + GZIP_LIBRARY).response();
    assertThat(r).isEqualTo(new CompressorConfig.Response(new RuntimeFlag("compressor_enabled", false), 100,
        Set.of("text/html", "application/json"), true, true, Set.of(), false));
  }

  @Test
  void theResponseDirectionWinsOverTheDeprecatedFieldsAsInEnvoy() throws ConfigException {
    CompressorConfig.Response r = translate("""
        content_length: 100
        disable_on_etag_header: true
        response_direction_config:
          common_config: {min_content_length: 10}
        """ + GZIP_LIBRARY).response();
    assertThat(r.minContentLength()).isEqualTo(10);
    assertThat(r.disableOnEtag()).isFalse();
  }

  @Test
  void readsEveryGzipField() throws ConfigException {
    CompressorConfig c = translate("""
        compressor_library:
          name: gz
          typed_config:
            "@type": %s
            memory_level: 9
            compression_level: BEST_SPEED
            compression_strategy: HUFFMAN_ONLY
            window_bits: 15
            chunk_size: 65536
        """.formatted(GZIP));
    assertThat(c.library()).isEqualTo(new CompressorConfig.Gzip(1, CompressorConfig.GzipStrategy.HUFFMAN_ONLY, 9, 15,
        65536));
    assertThat(translate(GZIP_LIBRARY.replace(GZIP, GZIP + "\n    compression_level: BEST_COMPRESSION"
        + "\n    compression_strategy: FILTERED")).library())
        .isEqualTo(new CompressorConfig.Gzip(9, CompressorConfig.GzipStrategy.FILTERED, 5, 12, 4096));
    assertThat(((CompressorConfig.Gzip) translate(GZIP_LIBRARY.replace(GZIP, GZIP
        + "\n    compression_level: COMPRESSION_LEVEL_4")).library()).level()).isEqualTo(4);
  }

  @Test
  void readsEveryZstdField() throws ConfigException {
    CompressorConfig c = translate("""
        compressor_library:
          name: zs
          typed_config:
            "@type": %s
            compression_level: 7
            enable_checksum: true
            strategy: BTULTRA
            chunk_size: 8192
        """.formatted(ZSTD));
    assertThat(c.encoding()).isEqualTo("zstd");
    assertThat(c.library()).isEqualTo(new CompressorConfig.Zstd(7, true, 8, 8192));
    assertThat(translate("compressor_library: {name: z, typed_config: {\"@type\": " + ZSTD + "}}\n").library())
        .isEqualTo(new CompressorConfig.Zstd(3, false, 0, 4096));
  }

  /** A brotli library with these fields (flow style, without braces). */
  private static String brotli(String fields) {
    return "compressor_library: {name: br, typed_config: {\"@type\": " + BROTLI
        + (fields.isEmpty() ? "" : ", " + fields) + "}}\n";
  }

  private static CompressorConfig.Brotli brotliLibrary(String fields) throws ConfigException {
    return (CompressorConfig.Brotli) translate(brotli(fields)).library();
  }

  @Test
  void readsBrotliWithEnvoysDefaults() throws ConfigException {
    CompressorConfig c = translate(brotli(""));
    assertThat(c.encoding()).isEqualTo("br");
    assertThat(c.libraryName()).isEqualTo("br");
    assertThat(c.library()).isEqualTo(new CompressorConfig.Brotli(3, CompressorConfig.BrotliMode.GENERIC, 18, 4096));
    assertThat(brotliLibrary("disable_literal_context_modeling: false"))
        .as("false is brotli's own behaviour").isEqualTo(c.library());
  }

  @Test
  void readsEveryBrotliFieldAtTheEdgesOfItsRange() throws ConfigException {
    assertThat(brotliLibrary("quality: 11, encoder_mode: TEXT, window_bits: 24, chunk_size: 65536"))
        .isEqualTo(new CompressorConfig.Brotli(11, CompressorConfig.BrotliMode.TEXT, 24, 65536));
    assertThat(brotliLibrary("quality: 0, encoder_mode: FONT, window_bits: 10, chunk_size: 4096"))
        .isEqualTo(new CompressorConfig.Brotli(0, CompressorConfig.BrotliMode.FONT, 10, 4096));
    assertThat(brotliLibrary("encoder_mode: GENERIC").mode()).isEqualTo(CompressorConfig.BrotliMode.GENERIC);
    assertThat(brotliLibrary("encoder_mode: DEFAULT").mode())
        .as("BROTLI_DEFAULT_MODE is BROTLI_MODE_GENERIC").isEqualTo(CompressorConfig.BrotliMode.GENERIC);
  }

  @Test
  void rejectsBrotliFieldsOutOfRangeOrThatBrotli4jCannotSetWithTheirPaths() {
    String lib = CONFIG + ".compressor_library.typed_config.";
    withFilter(brotli("quality: 12")).rejects(lib + "quality: must be from 0 to 11, got 12");
    withFilter(brotli("window_bits: 9")).rejects(lib + "window_bits: must be from 10 to 24, got 9");
    withFilter(brotli("window_bits: 25")).rejects(lib + "window_bits: must be from 10 to 24, got 25");
    withFilter(brotli("chunk_size: 4095")).rejects(lib + "chunk_size: must be from 4096 to 65536, got 4095");
    withFilter(brotli("chunk_size: 65537")).rejects(lib + "chunk_size: must be from 4096 to 65536, got 65537");
    withFilter(brotli("input_block_bits: 15")).rejects(lib + "input_block_bits: must be from 16 to 24, got 15");
    withFilter(brotli("input_block_bits: 25")).rejects(lib + "input_block_bits: must be from 16 to 24, got 25");
    String noLgblock = "input_block_bits: input_block_bits is not supported: brotli4j's encoder does not set"
        + " BROTLI_PARAM_LGBLOCK; leave it unset and brotli chooses the block size for the quality";
    withFilter(brotli("input_block_bits: 16")).rejects(lib + noLgblock);
    withFilter(brotli("input_block_bits: 24")).rejects(lib + noLgblock);
    withFilter(brotli("disable_literal_context_modeling: true")).rejects(lib + "disable_literal_context_modeling:"
        + " disable_literal_context_modeling is not supported: brotli4j's encoder does not set"
        + " BROTLI_PARAM_DISABLE_LITERAL_CONTEXT_MODELING");
    withFilter(brotli("encoder_mode: 7")).rejects(lib + "encoder_mode: 7 is not one of DEFAULT, GENERIC, TEXT, FONT");
  }

  @Test
  void readsTheRequestDirection() throws ConfigException {
    assertThat(translate(GZIP_LIBRARY).request()).as("absent: requests are never compressed").isEmpty();
    assertThat(translate("""
        request_direction_config:
          common_config:
            enabled: {default_value: false, runtime_key: request_compressor_enabled}
            min_content_length: 100
            content_type: [application/json]
        """ + GZIP_LIBRARY).request())
        .contains(new CompressorConfig.Request(new RuntimeFlag("request_compressor_enabled", false), 100,
            Set.of("application/json")));
    assertThat(translate("request_direction_config: {}\n" + GZIP_LIBRARY).request())
        .contains(new CompressorConfig.Request(RuntimeFlag.ON, 30, Set.copyOf(CompressorConfig.DEFAULT_CONTENT_TYPES)));
  }

  @Test
  void severalCompressorsMayShareAChainOnePerEncoding() throws ConfigException {
    HttpConnectionManagerConfig hcm = BootstrapYaml.minimal().httpFilters(
        entry("gzip", GZIP_LIBRARY) + entry("zstd", "compressor_library: {name: zs, typed_config: {\"@type\": "
            + ZSTD + "}}\nchoose_first: true\n") + ROUTER).translate().listeners().get(0).hcm();
    List<HttpFilterConfig> filters = hcm.httpFilters();
    assertThat(filters).extracting(HttpFilterConfig::extension).containsExactly(NAME, NAME,
        "envoy.filters.http.router");
    assertThat(filters).extracting(HttpFilterConfig::name).containsExactly("gzip", "zstd",
        "envoy.filters.http.router");
    assertThat(filters.get(1).settings(CompressorConfig.class).chooseFirst()).isTrue();
  }

  @Test
  void otherFiltersRepeatUnderNamesOfTheirOwn() throws ConfigException {
    String buffer = """
        - name: %s
          typed_config:
            "@type": type.googleapis.com/envoy.extensions.filters.http.buffer.v3.Buffer
            max_request_bytes: %d
        """;
    List<HttpFilterConfig> filters = BootstrapYaml.minimal().httpFilters(buffer.formatted("small", 1024)
        + buffer.formatted("large", 4096) + ROUTER).translate().listeners().get(0).hcm().httpFilters();
    assertThat(filters).extracting(HttpFilterConfig::name).containsExactly("small", "large", "envoy.filters.http.router");
    assertThat(filters.get(1).settings(HttpFilterConfig.Buffer.class).maxRequestBytes()).isEqualTo(4096);
  }

  @Test
  void otherFiltersStillMayNotRepeatUnderOneName() {
    String buffer = """
        - name: envoy.filters.http.buffer
          typed_config:
            "@type": type.googleapis.com/envoy.extensions.filters.http.buffer.v3.Buffer
            max_request_bytes: 1024
        """;
    BootstrapYaml.minimal().httpFilters(buffer + buffer + ROUTER)
        .rejects(HCM + ".http_filters[1].name: \"envoy.filters.http.buffer\" names an earlier filter too; give each entry of the chain its own name");
  }

  @Test
  void readsCompressorPerRoute() throws ConfigException {
    RouteConfig rc = withFilter(GZIP_LIBRARY).routes("""
        - match: {prefix: "/off"}
          route: {cluster: backend}
          typed_per_filter_config:
            envoy.filters.http.compressor:
              "@type": %s
              disabled: true
        - match: {prefix: "/keep"}
          route: {cluster: backend}
          typed_per_filter_config:
            envoy.filters.http.compressor:
              "@type": %s
              overrides:
                response_direction_config:
                  remove_accept_encoding_header: true
        - match: {prefix: "/on"}
          route: {cluster: backend}
          typed_per_filter_config:
            envoy.filters.http.compressor:
              "@type": %s
              overrides: {response_direction_config: {}}
        - match: {prefix: "/same"}
          route: {cluster: backend}
          typed_per_filter_config:
            envoy.filters.http.compressor:
              "@type": %s
              overrides: {}
        """.formatted(PER_ROUTE, PER_ROUTE, PER_ROUTE, PER_ROUTE)).translate().listeners().get(0).hcm()
        .routeConfig();
    List<Route> routes = rc.virtualHosts().get(0).routes();
    assertThat(routes.get(0).filterConfigs().get(NAME))
        .isEqualTo(new CompressorConfig.PerRoute(Optional.of(false), Optional.empty()));
    assertThat(routes.get(0).disabledFilters()).as("the filter stays in the chain, as in Envoy").isEmpty();
    assertThat(routes.get(1).filterConfigs().get(NAME))
        .isEqualTo(new CompressorConfig.PerRoute(Optional.of(true), Optional.of(true)));
    assertThat(routes.get(2).filterConfigs().get(NAME))
        .isEqualTo(new CompressorConfig.PerRoute(Optional.of(true), Optional.empty()));
    assertThat(routes.get(3).filterConfigs().get(NAME))
        .isEqualTo(new CompressorConfig.PerRoute(Optional.empty(), Optional.empty()));
  }

  @Test
  void rejectsBadFiltersWithTheirPaths() {
    withFilter("choose_first: true\n").rejects(CONFIG + ".compressor_library: compressor_library is required");
    withFilter("compressor_library: {typed_config: {\"@type\": " + GZIP + "}}\n")
        .rejects(CONFIG + ".compressor_library.name: name is required");
    withFilter("compressor_library: {name: x}\n")
        .rejects(CONFIG + ".compressor_library.typed_config: typed_config is required");
    withFilter("compressor_library: {name: x, typed_config: {\"@type\": "
        + "type.googleapis.com/envoy.extensions.filters.http.router.v3.Router}}\n")
        .rejects(CONFIG + ".compressor_library.typed_config: envoy.extensions.filters.http.router.v3.Router"
            + " (envoy.filters.http.router) cannot be used here: expected a compressor library");
    withFilter(GZIP_LIBRARY.replace(GZIP, GZIP + "\n    memory_level: 10"))
        .rejects(CONFIG + ".compressor_library.typed_config.memory_level: must be from 1 to 9, got 10");
    withFilter(GZIP_LIBRARY.replace(GZIP, GZIP + "\n    window_bits: 8"))
        .rejects(CONFIG + ".compressor_library.typed_config.window_bits: must be from 9 to 15, got 8");
    withFilter(GZIP_LIBRARY.replace(GZIP, GZIP + "\n    chunk_size: 1024"))
        .rejects(CONFIG + ".compressor_library.typed_config.chunk_size: must be from 4096 to 65536, got 1024");
    withFilter(GZIP_LIBRARY.replace(GZIP, GZIP + "\n    compression_strategy: RLE"))
        .rejects(CONFIG + ".compressor_library.typed_config.compression_strategy: RLE is not supported (the JDK's"
            + " zlib binding offers DEFAULT_STRATEGY, FILTERED and HUFFMAN_ONLY)");
    withFilter(GZIP_LIBRARY.replace(GZIP, GZIP + "\n    compression_strategy: FIXED"))
        .rejects(CONFIG + ".compressor_library.typed_config.compression_strategy: FIXED is not supported (the JDK's"
            + " zlib binding offers DEFAULT_STRATEGY, FILTERED and HUFFMAN_ONLY)");
    withFilter("compressor_library: {name: z, typed_config: {\"@type\": " + ZSTD + ", compression_level: 23}}\n")
        .rejects(CONFIG + ".compressor_library.typed_config.compression_level: must be at most 22");
    withFilter("compressor_library: {name: z, typed_config: {\"@type\": " + ZSTD + ", chunk_size: 100000}}\n")
        .rejects(CONFIG + ".compressor_library.typed_config.chunk_size: must be from 4096 to 65536, got 100000");
    withFilter("compressor_library: {name: z, typed_config: {\"@type\": " + ZSTD
        + ", dictionary: {inline_string: abc}}}\n")
        .rejects(CONFIG + ".compressor_library.typed_config.dictionary: dictionary is not supported");
    withFilter("request_direction_config: {common_config: {enabled: {default_value: true}}}\n" + GZIP_LIBRARY)
        .rejects(CONFIG + ".request_direction_config.common_config.enabled.runtime_key: runtime_key is required");
    withFilter("response_direction_config: {common_config: {enabled: {runtime_key: k}}}\n" + GZIP_LIBRARY)
        .rejects(CONFIG + ".response_direction_config.common_config.enabled.default_value: default_value is"
            + " required");
    withFilter("response_direction_config: {common_config: {enabled: {default_value: true}}}\n" + GZIP_LIBRARY)
        .rejects(CONFIG + ".response_direction_config.common_config.enabled.runtime_key: runtime_key is required");
    withFilter("runtime_enabled: {runtime_key: k}\n" + GZIP_LIBRARY)
        .rejects(CONFIG + ".runtime_enabled.default_value: default_value is required");
    withFilter("response_direction_config: {uncompressible_response_codes: [199]}\n" + GZIP_LIBRARY)
        .rejects(CONFIG + ".response_direction_config.uncompressible_response_codes[0]: 199 is not a status from 200"
            + " to 599");
    withFilter("response_direction_config: {uncompressible_response_codes: [206, 206]}\n" + GZIP_LIBRARY)
        .rejects(CONFIG + ".response_direction_config.uncompressible_response_codes[1]: 206 appears twice");
  }

  @Test
  void rejectsBadPerRouteConfigsWithTheirPaths() {
    String at = ROUTE + ".typed_per_filter_config[\"envoy.filters.http.compressor\"]";
    withFilter(GZIP_LIBRARY).routes("""
        - match: {prefix: "/"}
          route: {cluster: backend}
          typed_per_filter_config:
            envoy.filters.http.compressor:
              "@type": %s
        """.formatted(PER_ROUTE)).rejects(at + ": one of disabled or overrides is required");
    withFilter(GZIP_LIBRARY).routes("""
        - match: {prefix: "/"}
          route: {cluster: backend}
          typed_per_filter_config:
            envoy.filters.http.compressor:
              "@type": %s
              disabled: false
        """.formatted(PER_ROUTE)).rejects(at + ".disabled: disabled must be true when set");
  }
}
