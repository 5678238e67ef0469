package io.spillway.edge.config;

import static io.spillway.edge.config.BootstrapYaml.HCM;
import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

/**
 * envoy.filters.http.decompressor: the gzip, brotli and zstd libraries' fields and Envoy's defaults, both direction
 * configs, several entries in one chain, and every rejection with its path.
 */
class DecompressorTranslationTest {

  private static final String NAME = "envoy.filters.http.decompressor";
  private static final String TYPE = "type.googleapis.com/envoy.extensions.filters.http.decompressor.v3.Decompressor";
  private static final String GZIP = "type.googleapis.com/envoy.extensions.compression.gzip.decompressor.v3.Gzip";
  private static final String AT = HCM + ".http_filters[0].typed_config";

  private static BootstrapYaml chain(String fields) {
    return BootstrapYaml.minimal().httpFilters("""
        - name: envoy.filters.http.decompressor
          typed_config:
            "@type": %s
        %s
        - name: envoy.filters.http.router
        """.formatted(TYPE, fields.indent(4).stripTrailing()));
  }

  private static BootstrapYaml gzip(String libraryFields, String filterFields) {
    return chain("""
        decompressor_library:
          name: basic
          typed_config:
            "@type": %s
        %s
        %s""".formatted(GZIP, libraryFields.indent(4).stripTrailing(), filterFields));
  }

  private static DecompressorConfig config(BootstrapYaml yaml) throws ConfigException {
    return yaml.translate().listeners().get(0).hcm().filter(NAME).orElseThrow().settings(DecompressorConfig.class);
  }

  @Test
  void readsEveryField() throws ConfigException {
    DecompressorConfig c = config(gzip("""
        window_bits: 12
        chunk_size: 8192
        max_inflate_ratio: 20
        """, """
        request_direction_config:
          common_config:
            enabled: {default_value: false, runtime_key: decompress.request}
            ignore_no_transform_header: true
          advertise_accept_encoding: false
        response_direction_config:
          common_config:
            enabled: {default_value: true, runtime_key: decompress.response}
        """));
    assertThat(c.libraryName()).isEqualTo("basic");
    assertThat(c.encoding()).isEqualTo("gzip");
    assertThat(c.library()).isEqualTo(new DecompressorConfig.Gzip(12, 8192, 20));
    assertThat(c.request()).isEqualTo(new DecompressorConfig.Direction(
        new RuntimeFlag("decompress.request", false), true));
    assertThat(c.advertiseAcceptEncoding()).isFalse();
    assertThat(c.response()).isEqualTo(new DecompressorConfig.Direction(
        new RuntimeFlag("decompress.response", true), false));
  }

  @Test
  void readsTheBrotliAndZstdLibraries() throws ConfigException {
    DecompressorConfig br = config(chain("""
        decompressor_library:
          name: br
          typed_config:
            "@type": type.googleapis.com/envoy.extensions.compression.brotli.decompressor.v3.Brotli
            chunk_size: 16384
        """));
    assertThat(br.library()).isEqualTo(new DecompressorConfig.Brotli(16384));
    assertThat(br.encoding()).isEqualTo("br");
    DecompressorConfig zstd = config(chain("""
        decompressor_library:
          name: z
          typed_config: {"@type": type.googleapis.com/envoy.extensions.compression.zstd.decompressor.v3.Zstd}
        """));
    assertThat(zstd.library()).isEqualTo(new DecompressorConfig.Zstd(4096));
    assertThat(zstd.library().errorStat()).isEqualTo("zstd_generic_error");
  }

  @Test
  void takesEnvoysDefaults() throws ConfigException {
    DecompressorConfig c = config(gzip("", ""));
    assertThat(c.library()).isEqualTo(new DecompressorConfig.Gzip(15, 4096, 100));
    assertThat(c.request()).isEqualTo(DecompressorConfig.Direction.DEFAULT);
    assertThat(c.response()).isEqualTo(DecompressorConfig.Direction.DEFAULT);
    assertThat(c.advertiseAcceptEncoding()).isTrue();
  }

  @Test
  void aChainMayHoldSeveralEntriesUnderTheFiltersName() throws ConfigException {
    String entry = """
        - name: envoy.filters.http.decompressor
          typed_config:
            "@type": %s
            decompressor_library:
              name: %s
              typed_config: {"@type": %s}
        """;
    HttpConnectionManagerConfig hcm = BootstrapYaml.minimal().httpFilters(entry.formatted(TYPE, "one", GZIP)
        + entry.formatted(TYPE, "two", GZIP) + "- name: envoy.filters.http.router\n").translate().listeners().get(0)
        .hcm();
    assertThat(hcm.filterNames()).containsExactly(NAME, NAME, "envoy.filters.http.router");
  }

  @Test
  void rejectsWithThePath() {
    chain("request_direction_config: {}\n").rejects(AT + ".decompressor_library: decompressor_library is required");
    chain("decompressor_library: {typed_config: {\"@type\": " + GZIP + "}}\n")
        .rejects(AT + ".decompressor_library.name: name is required");
    chain("decompressor_library: {name: x}\n").rejects(AT + ".decompressor_library.typed_config: "
        + "typed_config is required");
    gzip("window_bits: 8\n", "").rejects(AT + ".decompressor_library.typed_config.window_bits: "
        + "must be from 9 to 15, got 8");
    gzip("chunk_size: 100\n", "").rejects(AT + ".decompressor_library.typed_config.chunk_size: "
        + "must be from 4096 to 65536, got 100");
    gzip("max_inflate_ratio: 2000\n", "").rejects(AT + ".decompressor_library.typed_config.max_inflate_ratio: "
        + "must be from 1 to 1032, got 2000");
    gzip("", "response_direction_config: {common_config: {enabled: {default_value: true}}}\n")
        .rejects(AT + ".response_direction_config.common_config.enabled.runtime_key: runtime_key is required");
    chain("""
        decompressor_library:
          name: br
          typed_config:
            "@type": type.googleapis.com/envoy.extensions.compression.brotli.decompressor.v3.Brotli
            disable_ring_buffer_reallocation: true
        """).rejects(AT + ".decompressor_library.typed_config.disable_ring_buffer_reallocation:"
        + " disable_ring_buffer_reallocation is not supported: brotli4j's decoder does not set"
        + " BROTLI_DECODER_PARAM_DISABLE_RING_BUFFER_REALLOCATION");
    chain("""
        decompressor_library:
          name: z
          typed_config:
            "@type": type.googleapis.com/envoy.extensions.compression.zstd.decompressor.v3.Zstd
            dictionaries: [{inline_string: abc}]
        """).rejects(AT + ".decompressor_library.typed_config.dictionaries: dictionaries is not supported yet");
    chain("""
        decompressor_library:
          name: z
          typed_config:
            "@type": type.googleapis.com/envoy.extensions.compression.zstd.decompressor.v3.Zstd
            chunk_size: 70000
        """).rejects(AT + ".decompressor_library.typed_config.chunk_size: must be from 4096 to 65536, got 70000");
    chain("""
        decompressor_library:
          name: gz
          typed_config: {"@type": type.googleapis.com/envoy.extensions.compression.gzip.compressor.v3.Gzip}
        """).rejects(AT + ".decompressor_library.typed_config: envoy.extensions.compression.gzip.compressor.v3.Gzip"
        + " (envoy.compression.gzip.compressor) cannot be used here: expected a decompressor library");
  }
}
