package io.spillway.edge.config;

import com.google.protobuf.InvalidProtocolBufferException;
import io.envoyproxy.envoy.config.core.v3.RuntimeFeatureFlag;
import io.envoyproxy.envoy.config.core.v3.TypedExtensionConfig;
import io.envoyproxy.envoy.extensions.compression.brotli.compressor.v3.Brotli;
import io.envoyproxy.envoy.extensions.compression.gzip.compressor.v3.Gzip;
import io.envoyproxy.envoy.extensions.compression.zstd.compressor.v3.Zstd;
import io.envoyproxy.envoy.extensions.filters.http.compressor.v3.Compressor;
import io.envoyproxy.envoy.extensions.filters.http.compressor.v3.CompressorOverrides;
import io.envoyproxy.envoy.extensions.filters.http.compressor.v3.CompressorPerRoute;
import io.envoyproxy.envoy.extensions.filters.http.compressor.v3.ResponseDirectionOverrides;
import io.spillway.edge.config.ExtensionRegistry.Category;
import io.spillway.edge.config.ExtensionRegistry.Extension;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Locale;
import java.util.Optional;
import java.util.Set;
import java.util.TreeSet;

/**
 * The {@code envoy.filters.http.compressor} config → {@link CompressorConfig}, and its
 * per-route {@code CompressorPerRoute}. Libraries: gzip (the JDK's zlib), zstd (zstd-jni) and
 * brotli (brotli4j). Only fields are checked here; whether a native library loads on this platform
 * is the edge's concern when it builds the filter, so translation never loads native code.
 */
final class CompressorTranslator {

  @SuppressWarnings("deprecation") // the deprecated top-level fields are still read, as by Envoy
  private static final SupportedFields COMPRESSOR = SupportedFields.of(Compressor.getDescriptor(),
      "content_length", "content_type", "disable_on_etag_header", "remove_accept_encoding_header",
      "runtime_enabled", "compressor_library", "request_direction_config", "response_direction_config",
      "choose_first");
  private static final SupportedFields LIBRARY = SupportedFields.of(TypedExtensionConfig.getDescriptor(),
      "name", "typed_config");
  private static final SupportedFields COMMON = SupportedFields.of(
      Compressor.CommonDirectionConfig.getDescriptor(), "enabled", "min_content_length", "content_type");
  private static final SupportedFields REQUEST = SupportedFields.of(
      Compressor.RequestDirectionConfig.getDescriptor(), "common_config");
  private static final SupportedFields RESPONSE = SupportedFields.of(
      Compressor.ResponseDirectionConfig.getDescriptor(), "common_config", "disable_on_etag_header",
      "remove_accept_encoding_header", "uncompressible_response_codes");
  private static final SupportedFields FEATURE_FLAG = SupportedFields.of(RuntimeFeatureFlag.getDescriptor(),
      "default_value", "runtime_key");
  private static final SupportedFields GZIP = SupportedFields.of(Gzip.getDescriptor(),
      "memory_level", "compression_level", "compression_strategy", "window_bits", "chunk_size");
  private static final SupportedFields ZSTD = SupportedFields.of(Zstd.getDescriptor(),
      "compression_level", "enable_checksum", "strategy", "chunk_size");
  private static final SupportedFields BROTLI = SupportedFields.of(Brotli.getDescriptor(),
      "quality", "encoder_mode", "window_bits", "input_block_bits", "chunk_size", "disable_literal_context_modeling");
  private static final SupportedFields PER_ROUTE = SupportedFields.of(CompressorPerRoute.getDescriptor(),
      "disabled", "overrides");
  private static final SupportedFields OVERRIDES = SupportedFields.of(CompressorOverrides.getDescriptor(),
      "response_direction_config");
  private static final SupportedFields RESPONSE_OVERRIDES = SupportedFields.of(
      ResponseDirectionOverrides.getDescriptor(), "remove_accept_encoding_header");

  /** zstd's highest level (ZSTD_maxCLevel). */
  private static final int ZSTD_MAX_LEVEL = 22;

  private CompressorTranslator() {}

  @SuppressWarnings("deprecation")
  static CompressorConfig translate(Compressor c, ExtensionRegistry registry, FieldPath path)
      throws ConfigException {
    COMPRESSOR.check(c, path);
    FieldPath libraryPath = path.field("compressor_library");
    if (!c.hasCompressorLibrary()) {
      throw new ConfigException(libraryPath, "compressor_library is required");
    }
    TypedExtensionConfig library = c.getCompressorLibrary();
    LIBRARY.check(library, libraryPath);
    if (library.getName().isEmpty()) {
      throw new ConfigException(libraryPath.field("name"), "name is required");
    }
    CompressorConfig.Library lib = library(library, registry, libraryPath.field("typed_config"));
    Optional<CompressorConfig.Request> request = c.hasRequestDirectionConfig()
        ? Optional.of(requestDirection(c.getRequestDirectionConfig(), path.field("request_direction_config")))
        : Optional.empty();
    CompressorConfig.Response response;
    if (c.hasResponseDirectionConfig()) {
      // As in Envoy, the deprecated top-level fields are then not read.
      FieldPath responsePath = path.field("response_direction_config");
      Compressor.ResponseDirectionConfig r = c.getResponseDirectionConfig();
      RESPONSE.check(r, responsePath);
      FieldPath commonPath = responsePath.field("common_config");
      Compressor.CommonDirectionConfig common = r.getCommonConfig();
      COMMON.check(common, commonPath);
      response = new CompressorConfig.Response(
          enabled(common.hasEnabled(), common.getEnabled(), commonPath.field("enabled")),
          minContentLength(common.hasMinContentLength(), common.getMinContentLength().getValue()),
          contentTypes(common.getContentTypeList()), r.getDisableOnEtagHeader(), r.getRemoveAcceptEncodingHeader(),
          statuses(r.getUncompressibleResponseCodesList(), responsePath.field("uncompressible_response_codes")),
          true);
    } else {
      response = new CompressorConfig.Response(
          enabled(c.hasRuntimeEnabled(), c.getRuntimeEnabled(), path.field("runtime_enabled")),
          minContentLength(c.hasContentLength(), c.getContentLength().getValue()),
          contentTypes(c.getContentTypeList()), c.getDisableOnEtagHeader(), c.getRemoveAcceptEncodingHeader(),
          Set.of(), false);
    }
    return new CompressorConfig(library.getName(), lib, response, c.getChooseFirst(), request);
  }

  /**
   * A route's {@code CompressorPerRoute}: {@code disabled: true} or {@code overrides}.
   *
   * @param path the path of the {@code typed_per_filter_config} entry
   */
  static CompressorConfig.PerRoute perRoute(CompressorPerRoute p, FieldPath path) throws ConfigException {
    PER_ROUTE.check(p, path);
    switch (p.getOverrideCase()) {
      case DISABLED -> {
        if (!p.getDisabled()) {
          throw new ConfigException(path.field("disabled"), "disabled must be true when set");
        }
        return new CompressorConfig.PerRoute(Optional.of(false), Optional.empty());
      }
      case OVERRIDES -> {
        FieldPath overridesPath = path.field("overrides");
        CompressorOverrides o = p.getOverrides();
        OVERRIDES.check(o, overridesPath);
        if (!o.hasResponseDirectionConfig()) {
          return new CompressorConfig.PerRoute(Optional.empty(), Optional.empty());
        }
        ResponseDirectionOverrides r = o.getResponseDirectionConfig();
        RESPONSE_OVERRIDES.check(r, overridesPath.field("response_direction_config"));
        // Envoy: the presence of response_direction_config turns response compression on.
        return new CompressorConfig.PerRoute(Optional.of(true), r.hasRemoveAcceptEncodingHeader()
            ? Optional.of(r.getRemoveAcceptEncodingHeader().getValue()) : Optional.empty());
      }
      default -> throw new ConfigException(path, "one of disabled or overrides is required");
    }
  }

  private static CompressorConfig.Library library(TypedExtensionConfig library, ExtensionRegistry registry,
      FieldPath path) throws ConfigException {
    if (!library.hasTypedConfig()) {
      throw new ConfigException(path, "typed_config is required");
    }
    Extension e = registry.resolve(library.getTypedConfig(), Category.COMPRESSOR_LIBRARY, path);
    String type = e.typeName();
    if (type.equals(Gzip.getDescriptor().getFullName())) {
      return gzip(registry.unpack(library.getTypedConfig(), Gzip.class, Category.COMPRESSOR_LIBRARY, path), path);
    }
    if (type.equals(Zstd.getDescriptor().getFullName())) {
      return zstd(registry.unpack(library.getTypedConfig(), Zstd.class, Category.COMPRESSOR_LIBRARY, path), path);
    }
    if (type.equals(Brotli.getDescriptor().getFullName())) {
      return brotli(registry.unpack(library.getTypedConfig(), Brotli.class, Category.COMPRESSOR_LIBRARY, path),
          path);
    }
    throw new ConfigException(path, type + " is not supported");
  }

  private static CompressorConfig.Gzip gzip(Gzip g, FieldPath path) throws ConfigException {
    GZIP.check(g, path);
    int memoryLevel = bounded(g.hasMemoryLevel(), g.getMemoryLevel().getValue(), path.field("memory_level"), 1, 9,
        CompressorConfig.Gzip.DEFAULT_MEMORY_LEVEL);
    int windowBits = bounded(g.hasWindowBits(), g.getWindowBits().getValue(), path.field("window_bits"), 9, 15,
        CompressorConfig.Gzip.DEFAULT_WINDOW_BITS);
    int chunkSize = bounded(g.hasChunkSize(), g.getChunkSize().getValue(), path.field("chunk_size"), 4096, 65536,
        CompressorConfig.Gzip.DEFAULT_CHUNK_SIZE);
    int level = switch (g.getCompressionLevelValue()) {
      case 0 -> -1; // DEFAULT_COMPRESSION: zlib's own default (6)
      case 1, 2, 3, 4, 5, 6, 7, 8, 9 -> g.getCompressionLevelValue();
      default -> throw new ConfigException(path.field("compression_level"),
          g.getCompressionLevelValue() + " is not a defined compression level");
    };
    CompressorConfig.GzipStrategy strategy = switch (g.getCompressionStrategy()) {
      case DEFAULT_STRATEGY -> CompressorConfig.GzipStrategy.DEFAULT;
      case FILTERED -> CompressorConfig.GzipStrategy.FILTERED;
      case HUFFMAN_ONLY -> CompressorConfig.GzipStrategy.HUFFMAN_ONLY;
      case RLE, FIXED -> throw new ConfigException(path.field("compression_strategy"), g.getCompressionStrategy()
          + " is not supported (the JDK's zlib binding offers DEFAULT_STRATEGY, FILTERED and HUFFMAN_ONLY)");
      default -> throw new ConfigException(path.field("compression_strategy"),
          g.getCompressionStrategyValue() + " is not a defined strategy");
    };
    return new CompressorConfig.Gzip(level, strategy, memoryLevel, windowBits, chunkSize);
  }

  private static CompressorConfig.Zstd zstd(Zstd z, FieldPath path) throws ConfigException {
    ZSTD.check(z, path);
    int level = CompressorConfig.Zstd.DEFAULT_LEVEL;
    if (z.hasCompressionLevel()) {
      long raw = Integer.toUnsignedLong(z.getCompressionLevel().getValue());
      if (raw > ZSTD_MAX_LEVEL) {
        throw new ConfigException(path.field("compression_level"), "must be at most " + ZSTD_MAX_LEVEL);
      }
      level = (int) raw; // 0: zstd's default level, as in Envoy
    }
    if (z.getStrategyValue() < 0 || z.getStrategyValue() > 9) {
      throw new ConfigException(path.field("strategy"), z.getStrategyValue() + " is not a defined strategy");
    }
    int chunkSize = bounded(z.hasChunkSize(), z.getChunkSize().getValue(), path.field("chunk_size"), 4096, 65536,
        CompressorConfig.Zstd.DEFAULT_CHUNK_SIZE);
    return new CompressorConfig.Zstd(level, z.getEnableChecksum(), z.getStrategyValue(), chunkSize);
  }

  /**
   * Envoy's Brotli fields, with Envoy's ranges and defaults. brotli4j's encoder takes quality,
   * window and mode only: a set {@code input_block_bits} and {@code disable_literal_context_modeling:
   * true} are refused rather than dropped.
   */
  private static CompressorConfig.Brotli brotli(Brotli b, FieldPath path) throws ConfigException {
    BROTLI.check(b, path);
    int quality = bounded(b.hasQuality(), b.getQuality().getValue(), path.field("quality"), 0, 11,
        CompressorConfig.Brotli.DEFAULT_QUALITY);
    int windowBits = bounded(b.hasWindowBits(), b.getWindowBits().getValue(), path.field("window_bits"), 10, 24,
        CompressorConfig.Brotli.DEFAULT_WINDOW_BITS);
    int chunkSize = bounded(b.hasChunkSize(), b.getChunkSize().getValue(), path.field("chunk_size"), 4096, 65536,
        CompressorConfig.Brotli.DEFAULT_CHUNK_SIZE);
    if (b.hasInputBlockBits()) {
      FieldPath blockPath = path.field("input_block_bits");
      bounded(true, b.getInputBlockBits().getValue(), blockPath, 16, 24, 0);
      throw new ConfigException(blockPath, "input_block_bits is not supported: brotli4j's encoder does not set"
          + " BROTLI_PARAM_LGBLOCK; leave it unset and brotli chooses the block size for the quality");
    }
    if (b.getDisableLiteralContextModeling()) {
      throw new ConfigException(path.field("disable_literal_context_modeling"), "disable_literal_context_modeling"
          + " is not supported: brotli4j's encoder does not set BROTLI_PARAM_DISABLE_LITERAL_CONTEXT_MODELING");
    }
    CompressorConfig.BrotliMode mode = switch (b.getEncoderModeValue()) {
      case Brotli.EncoderMode.DEFAULT_VALUE, Brotli.EncoderMode.GENERIC_VALUE -> CompressorConfig.BrotliMode.GENERIC;
      case Brotli.EncoderMode.TEXT_VALUE -> CompressorConfig.BrotliMode.TEXT;
      case Brotli.EncoderMode.FONT_VALUE -> CompressorConfig.BrotliMode.FONT;
      default -> throw new ConfigException(path.field("encoder_mode"),
          b.getEncoderModeValue() + " is not a defined encoder mode");
    };
    return new CompressorConfig.Brotli(quality, mode, windowBits, chunkSize);
  }

  private static CompressorConfig.Request requestDirection(Compressor.RequestDirectionConfig r, FieldPath path)
      throws ConfigException {
    REQUEST.check(r, path);
    FieldPath commonPath = path.field("common_config");
    Compressor.CommonDirectionConfig common = r.getCommonConfig();
    COMMON.check(common, commonPath);
    return new CompressorConfig.Request(enabled(common.hasEnabled(), common.getEnabled(), commonPath.field("enabled")),
        minContentLength(common.hasMinContentLength(), common.getMinContentLength().getValue()),
        contentTypes(common.getContentTypeList()));
  }

  /** A feature flag: its default value, which the runtime's value of its key overrides. */
  static RuntimeFlag enabled(boolean has, RuntimeFeatureFlag flag, FieldPath path) throws ConfigException {
    if (!has) {
      return RuntimeFlag.ON;
    }
    FEATURE_FLAG.check(flag, path);
    if (!flag.hasDefaultValue()) {
      throw new ConfigException(path.field("default_value"), "default_value is required");
    }
    if (flag.getRuntimeKey().isEmpty()) {
      throw new ConfigException(path.field("runtime_key"), "runtime_key is required");
    }
    return new RuntimeFlag(flag.getRuntimeKey(), flag.getDefaultValue().getValue());
  }

  /** 0 or unset: Envoy's default of 30 bytes. */
  private static long minContentLength(boolean has, int raw) {
    return has && raw != 0 ? Integer.toUnsignedLong(raw) : CompressorConfig.DEFAULT_MIN_CONTENT_LENGTH;
  }

  private static Set<String> contentTypes(List<String> configured) {
    List<String> types = configured.isEmpty() ? CompressorConfig.DEFAULT_CONTENT_TYPES : configured;
    Set<String> set = new LinkedHashSet<>();
    for (String t : types) {
      set.add(t.trim().toLowerCase(Locale.ROOT));
    }
    return set;
  }

  private static Set<Integer> statuses(List<Integer> codes, FieldPath path) throws ConfigException {
    Set<Integer> set = new TreeSet<>();
    for (int i = 0; i < codes.size(); i++) {
      long code = Integer.toUnsignedLong(codes.get(i));
      if (code < 200 || code >= 600) {
        throw new ConfigException(path.index(i), code + " is not a status from 200 to 599");
      }
      if (!set.add((int) code)) {
        throw new ConfigException(path.index(i), code + " appears twice");
      }
    }
    return set;
  }

  static int bounded(boolean has, int raw, FieldPath path, int min, int max, int fallback)
      throws ConfigException {
    if (!has) {
      return fallback;
    }
    long value = Integer.toUnsignedLong(raw);
    if (value < min || value > max) {
      throw new ConfigException(path, "must be from " + min + " to " + max + ", got " + value);
    }
    return (int) value;
  }

  /** Reads a {@code CompressorPerRoute} from its Any (for the route translator). */
  static CompressorConfig.PerRoute perRoute(com.google.protobuf.Any any, FieldPath path) throws ConfigException {
    try {
      return perRoute(any.unpack(CompressorPerRoute.class), path);
    } catch (InvalidProtocolBufferException e) {
      throw new ConfigException(path, "cannot decode " + any.getTypeUrl() + ": " + e.getMessage(), e);
    }
  }
}
