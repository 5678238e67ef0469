package io.spillway.edge.config;

import io.envoyproxy.envoy.config.core.v3.TypedExtensionConfig;
import io.envoyproxy.envoy.extensions.compression.gzip.decompressor.v3.Gzip;
import io.envoyproxy.envoy.extensions.filters.http.decompressor.v3.Decompressor;
import io.spillway.edge.config.ExtensionRegistry.Category;
import io.spillway.edge.config.ExtensionRegistry.Extension;

/**
 * The {@code envoy.filters.http.decompressor} config → {@link DecompressorConfig}. Libraries: gzip
 * (the JDK's zlib), brotli (brotli4j) and zstd (zstd-jni), as the compressor has them; zstd
 * {@code dictionaries} and brotli's {@code disable_ring_buffer_reallocation: true} are refused
 * (the bindings cannot honour them). Every field of the filter itself is supported.
 */
final class DecompressorTranslator {

  private static final SupportedFields DECOMPRESSOR = SupportedFields.of(Decompressor.getDescriptor(),
      "decompressor_library", "request_direction_config", "response_direction_config");
  private static final SupportedFields LIBRARY = SupportedFields.of(TypedExtensionConfig.getDescriptor(),
      "name", "typed_config");
  private static final SupportedFields COMMON = SupportedFields.of(
      Decompressor.CommonDirectionConfig.getDescriptor(), "enabled", "ignore_no_transform_header");
  private static final SupportedFields REQUEST = SupportedFields.of(
      Decompressor.RequestDirectionConfig.getDescriptor(), "common_config", "advertise_accept_encoding");
  private static final SupportedFields RESPONSE = SupportedFields.of(
      Decompressor.ResponseDirectionConfig.getDescriptor(), "common_config");
  private static final SupportedFields GZIP = SupportedFields.of(Gzip.getDescriptor(),
      "window_bits", "chunk_size", "max_inflate_ratio");
  private static final SupportedFields BROTLI = SupportedFields.of(
      io.envoyproxy.envoy.extensions.compression.brotli.decompressor.v3.Brotli.getDescriptor(),
      "chunk_size", "disable_ring_buffer_reallocation");
  private static final SupportedFields ZSTD = SupportedFields.of(
      io.envoyproxy.envoy.extensions.compression.zstd.decompressor.v3.Zstd.getDescriptor(), "chunk_size")
      .later("dictionaries");

  private DecompressorTranslator() {}

  static DecompressorConfig translate(Decompressor d, ExtensionRegistry registry, FieldPath path)
      throws ConfigException {
    DECOMPRESSOR.check(d, path);
    FieldPath libraryPath = path.field("decompressor_library");
    if (!d.hasDecompressorLibrary()) {
      throw new ConfigException(libraryPath, "decompressor_library is required");
    }
    TypedExtensionConfig library = d.getDecompressorLibrary();
    LIBRARY.check(library, libraryPath);
    if (library.getName().isEmpty()) {
      throw new ConfigException(libraryPath.field("name"), "name is required");
    }
    DecompressorConfig.Library lib = library(library, registry, libraryPath.field("typed_config"));

    FieldPath requestPath = path.field("request_direction_config");
    Decompressor.RequestDirectionConfig request = d.getRequestDirectionConfig();
    REQUEST.check(request, requestPath);
    DecompressorConfig.Direction requestDirection =
        direction(request.hasCommonConfig(), request.getCommonConfig(), requestPath.field("common_config"));
    boolean advertise = !request.hasAdvertiseAcceptEncoding() || request.getAdvertiseAcceptEncoding().getValue();

    FieldPath responsePath = path.field("response_direction_config");
    Decompressor.ResponseDirectionConfig response = d.getResponseDirectionConfig();
    RESPONSE.check(response, responsePath);
    DecompressorConfig.Direction responseDirection =
        direction(response.hasCommonConfig(), response.getCommonConfig(), responsePath.field("common_config"));
    return new DecompressorConfig(library.getName(), lib, requestDirection, advertise, responseDirection);
  }

  private static DecompressorConfig.Direction direction(boolean has, Decompressor.CommonDirectionConfig c,
      FieldPath path) throws ConfigException {
    if (!has) {
      return DecompressorConfig.Direction.DEFAULT;
    }
    COMMON.check(c, path);
    RuntimeFlag enabled = c.hasEnabled()
        ? CompressorTranslator.enabled(true, c.getEnabled(), path.field("enabled")) : RuntimeFlag.ON;
    return new DecompressorConfig.Direction(enabled, c.getIgnoreNoTransformHeader());
  }

  private static DecompressorConfig.Library library(TypedExtensionConfig library, ExtensionRegistry registry,
      FieldPath path) throws ConfigException {
    if (!library.hasTypedConfig()) {
      throw new ConfigException(path, "typed_config is required");
    }
    Extension e = registry.resolve(library.getTypedConfig(), Category.DECOMPRESSOR_LIBRARY, path);
    if (e.typeName().equals(
        io.envoyproxy.envoy.extensions.compression.brotli.decompressor.v3.Brotli.getDescriptor().getFullName())) {
      var b = registry.unpack(library.getTypedConfig(),
          io.envoyproxy.envoy.extensions.compression.brotli.decompressor.v3.Brotli.class,
          Category.DECOMPRESSOR_LIBRARY, path);
      BROTLI.check(b, path);
      if (b.getDisableRingBufferReallocation()) {
        throw new ConfigException(path.field("disable_ring_buffer_reallocation"), "disable_ring_buffer_reallocation"
            + " is not supported: brotli4j's decoder does not set BROTLI_DECODER_PARAM_DISABLE_RING_BUFFER_REALLOCATION");
      }
      return new DecompressorConfig.Brotli(chunkSize(b.hasChunkSize(), b.getChunkSize().getValue(), path));
    }
    if (e.typeName().equals(
        io.envoyproxy.envoy.extensions.compression.zstd.decompressor.v3.Zstd.getDescriptor().getFullName())) {
      var z = registry.unpack(library.getTypedConfig(),
          io.envoyproxy.envoy.extensions.compression.zstd.decompressor.v3.Zstd.class,
          Category.DECOMPRESSOR_LIBRARY, path);
      ZSTD.check(z, path);
      return new DecompressorConfig.Zstd(chunkSize(z.hasChunkSize(), z.getChunkSize().getValue(), path));
    }
    Gzip g = registry.unpack(library.getTypedConfig(), Gzip.class, Category.DECOMPRESSOR_LIBRARY, path);
    GZIP.check(g, path);
    return new DecompressorConfig.Gzip(
        CompressorTranslator.bounded(g.hasWindowBits(), g.getWindowBits().getValue(), path.field("window_bits"),
            9, 15, DecompressorConfig.Gzip.DEFAULT_WINDOW_BITS),
        chunkSize(g.hasChunkSize(), g.getChunkSize().getValue(), path),
        CompressorTranslator.bounded(g.hasMaxInflateRatio(), g.getMaxInflateRatio().getValue(),
            path.field("max_inflate_ratio"), 1, 1032, DecompressorConfig.Gzip.DEFAULT_MAX_INFLATE_RATIO));
  }

  /** Envoy's {@code chunk_size} range and default, the same for every library. */
  private static int chunkSize(boolean has, int raw, FieldPath path) throws ConfigException {
    return CompressorTranslator.bounded(has, raw, path.field("chunk_size"), 4096, 65536,
        DecompressorConfig.Gzip.DEFAULT_CHUNK_SIZE);
  }
}
