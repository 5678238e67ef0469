package io.spillway.edge.config;

/**
 * Envoy's {@code envoy.filters.http.decompressor} ({@code Decompressor}): which library decodes
 * bodies and in which directions. Stats live under
 * {@code http.<stat_prefix>.decompressor.<libraryName>.<encoding>.}.
 *
 * @param libraryName {@code decompressor_library.name}
 * @param library the decompression library and its parameters
 * @param request {@code request_direction_config.common_config}
 * @param advertiseAcceptEncoding {@code request_direction_config.advertise_accept_encoding}
 *     (true when unset): while response decompression is on, requests go upstream with the
 *     library's encoding in {@code Accept-Encoding}
 * @param response {@code response_direction_config.common_config}
 */
public record DecompressorConfig(String libraryName, Library library, Direction request,
    boolean advertiseAcceptEncoding, Direction response) implements HttpFilterConfig.Settings {

  /** The content coding the library decodes (RFC 9110 §8.4.1), also its stats segment. */
  public String encoding() {
    return library.encoding();
  }

  /** A decompression library ({@code decompressor_library.typed_config}). */
  public sealed interface Library {
    String encoding();

    /** Buffers are allocated this large (Envoy's {@code chunk_size}). */
    int chunkSize();

    /** The library's own error counter under {@code decompressor_library.}, as Envoy names it. */
    default String errorStat() {
      return switch (this) {
        case Gzip g -> "zlib_data_error";
        case Brotli b -> "brotli_error";
        case Zstd z -> "zstd_generic_error";
      };
    }
  }

  /**
   * {@code envoy.extensions.compression.gzip.decompressor.v3.Gzip}.
   *
   * @param windowBits {@code window_bits} as configured (9-15, default 15); the JDK's inflater
   *     always decodes with the largest window, which decodes every smaller one
   * @param chunkSize {@code chunk_size} (4096-65536, default 4096)
   * @param maxInflateRatio {@code max_inflate_ratio} (1-1032, default 100): how many times its
   *     input a body may decode to, per part and over the body (see docs/configuration.md)
   */
  public record Gzip(int windowBits, int chunkSize, int maxInflateRatio) implements Library {
    public static final int DEFAULT_WINDOW_BITS = 15;
    /** Envoy's default {@code chunk_size}, the same for every library. */
    public static final int DEFAULT_CHUNK_SIZE = 4096;
    public static final int DEFAULT_MAX_INFLATE_RATIO = 100;

    @Override
    public String encoding() {
      return "gzip";
    }
  }

  /**
   * {@code envoy.extensions.compression.brotli.decompressor.v3.Brotli}: a body part may decode to
   * at most 100 times its size (Envoy's fixed bound for brotli).
   *
   * @param chunkSize {@code chunk_size} (4096-65536, default 4096): the decoder's input buffer
   */
  public record Brotli(int chunkSize) implements Library {
    @Override
    public String encoding() {
      return "br";
    }
  }

  /**
   * {@code envoy.extensions.compression.zstd.decompressor.v3.Zstd}: a body part may decode to at
   * most 100 times its size (the edge's bound, as for brotli).
   *
   * @param chunkSize {@code chunk_size} (4096-65536, default 4096)
   */
  public record Zstd(int chunkSize) implements Library {
    @Override
    public String encoding() {
      return "zstd";
    }
  }

  /**
   * One direction's {@code common_config}.
   *
   * @param enabled {@code enabled} (on when unset)
   * @param ignoreNoTransform {@code ignore_no_transform_header}: decode even with
   *     {@code Cache-Control: no-transform}
   */
  public record Direction(RuntimeFlag enabled, boolean ignoreNoTransform) {
    /** An unset direction: on, honouring {@code no-transform}. */
    public static final Direction DEFAULT = new Direction(RuntimeFlag.ON, false);
  }
}
