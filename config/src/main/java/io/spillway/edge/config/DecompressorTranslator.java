package io.spillway.edge.config;

import io.envoyproxy.envoy.config.core.v3.TypedExtensionConfig;
import io.envoyproxy.envoy.extensions.compression.gzip.decompressor.v3.Gzip;
import io.envoyproxy.envoy.extensions.filters.http.decompressor.v3.Decompressor;
import io.spillway.edge.config.ExtensionRegistry.Category;
import io.spillway.edge.config.ExtensionRegistry.Extension;

/**
 * The {@code envoy.filters.http.decompressor} config → {@link DecompressorConfig}. Library: gzip
 * (the JDK's zlib); Envoy's brotli and zstd decompressors are registered so that their refusal
 * names them. Every field of the filter is supported.
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
    if (!e.typeName().equals(Gzip.getDescriptor().getFullName())) {
      throw new ConfigException(path, e.typeName() + " (" + e.name() + ") is not supported yet: the decompressor"
          + " filter decodes gzip only (envoy.compression.gzip.decompressor)");
    }
    Gzip g = registry.unpack(library.getTypedConfig(), Gzip.class, Category.DECOMPRESSOR_LIBRARY, path);
    GZIP.check(g, path);
    return new DecompressorConfig.Gzip(
        CompressorTranslator.bounded(g.hasWindowBits(), g.getWindowBits().getValue(), path.field("window_bits"),
            9, 15, DecompressorConfig.Gzip.DEFAULT_WINDOW_BITS),
        CompressorTranslator.bounded(g.hasChunkSize(), g.getChunkSize().getValue(), path.field("chunk_size"),
            4096, 65536, DecompressorConfig.Gzip.DEFAULT_CHUNK_SIZE),
        CompressorTranslator.bounded(g.hasMaxInflateRatio(), g.getMaxInflateRatio().getValue(),
            path.field("max_inflate_ratio"), 1, 1032, DecompressorConfig.Gzip.DEFAULT_MAX_INFLATE_RATIO));
  }
}
