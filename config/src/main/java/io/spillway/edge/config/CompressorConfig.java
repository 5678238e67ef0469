package io.spillway.edge.config;

import java.util.List;
import java.util.Optional;
import java.util.Set;

/**
 * Envoy's {@code envoy.filters.http.compressor} ({@code Compressor}): which library compresses
 * response bodies, and when. A chain may hold several, one per encoding; the request's
 * {@code Accept-Encoding} chooses among them.
 *
 * @param libraryName {@code compressor_library.name}: stats live under
 *     {@code http.<stat_prefix>.compressor.<libraryName>.<encoding>.}
 * @param library the compression library and its parameters
 * @param response when responses are compressed
 * @param chooseFirst on equal q-values, this filter's encoding wins (Envoy's {@code choose_first})
 * @param request when request bodies are compressed; empty without {@code request_direction_config}
 *     (then they never are, as in Envoy)
 */
public record CompressorConfig(String libraryName, Library library, Response response, boolean chooseFirst,
    Optional<Request> request) implements HttpFilterConfig.Settings {

  /**
   * Envoy's default {@code content_type} list: what is compressed when the config names none.
   */
  public static final List<String> DEFAULT_CONTENT_TYPES = List.of("text/html", "text/plain", "text/css",
      "application/javascript", "application/x-javascript", "text/javascript", "text/x-javascript",
      "text/ecmascript", "text/js", "text/jscript", "text/x-js", "application/ecmascript", "application/x-json",
      "application/xml", "application/json", "image/svg+xml", "text/xml", "application/xhtml+xml",
      "application/grpc-web", "application/grpc-web+proto");

  /** Envoy's default {@code min_content_length}. */
  public static final int DEFAULT_MIN_CONTENT_LENGTH = 30;

  /** The encoding this filter produces: the {@code Content-Encoding} it sets and the token it looks for. */
  public String encoding() {
    return library.encoding();
  }

  /** A compression library ({@code compressor_library.typed_config}). */
  public sealed interface Library {
    /** The content coding (RFC 9110 §8.4.1), also the library's stats prefix. */
    String encoding();

    /** Output buffers are allocated this large (Envoy's {@code chunk_size}). */
    int chunkSize();
  }

  /**
   * {@code envoy.extensions.compression.gzip.compressor.v3.Gzip}.
   *
   * @param level zlib's level, 1 to 9, or -1 for zlib's default (Envoy's {@code DEFAULT_COMPRESSION})
   * @param strategy the deflate strategy
   * @param memoryLevel {@code memory_level} as configured (1-9); see docs/configuration.md for how
   *     the JDK's zlib binding treats it
   * @param windowBits {@code window_bits} as configured (9-15); likewise
   */
  public record Gzip(int level, GzipStrategy strategy, int memoryLevel, int windowBits, int chunkSize)
      implements Library {
    public static final int DEFAULT_MEMORY_LEVEL = 5;
    public static final int DEFAULT_WINDOW_BITS = 12;
    public static final int DEFAULT_CHUNK_SIZE = 4096;

    @Override
    public String encoding() {
      return "gzip";
    }
  }

  /** The deflate strategies the JDK's zlib binding offers. */
  public enum GzipStrategy { DEFAULT, FILTERED, HUFFMAN_ONLY }

  /**
   * {@code envoy.extensions.compression.zstd.compressor.v3.Zstd}.
   *
   * @param level the zstd level (Envoy's default is zstd's, 3)
   * @param checksum whether each frame ends with a checksum
   * @param strategy zstd's {@code ZSTD_c_strategy}, 0 for the level's own
   */
  public record Zstd(int level, boolean checksum, int strategy, int chunkSize) implements Library {
    public static final int DEFAULT_LEVEL = 3;
    public static final int DEFAULT_CHUNK_SIZE = 4096;

    @Override
    public String encoding() {
      return "zstd";
    }
  }

  /**
   * {@code envoy.extensions.compression.brotli.compressor.v3.Brotli} (RFC 7932), the parameters
   * brotli4j's streaming encoder takes. Envoy's {@code input_block_bits} and
   * {@code disable_literal_context_modeling: true} are refused at translation: the binding cannot set them.
   *
   * @param quality brotli's quality, 0 to 11 (Envoy's default 3)
   * @param mode the encoder mode ({@code DEFAULT} is brotli's default, {@code GENERIC})
   * @param windowBits the base-2 logarithm of the window, 10 to 24 (Envoy's default 18)
   */
  public record Brotli(int quality, BrotliMode mode, int windowBits, int chunkSize) implements Library {
    public static final int DEFAULT_QUALITY = 3;
    public static final int DEFAULT_WINDOW_BITS = 18;
    public static final int DEFAULT_CHUNK_SIZE = 4096;

    @Override
    public String encoding() {
      return "br";
    }
  }

  /** Brotli's encoder modes ({@code BROTLI_PARAM_MODE}); Envoy's {@code DEFAULT} is {@code GENERIC}. */
  public enum BrotliMode { GENERIC, TEXT, FONT }

  /**
   * The response direction: {@code response_direction_config}, or the deprecated top-level fields
   * when it is absent (as Envoy reads them).
   *
   * @param enabled {@code common_config.enabled} (on when unset)
   * @param minContentLength responses that declare a shorter {@code Content-Length} are not compressed
   * @param contentTypes lower-cased media types (no parameters) that are compressed
   * @param disableOnEtag responses with an {@code ETag} are not compressed; otherwise a strong ETag is removed
   * @param removeAcceptEncoding the request goes upstream without {@code Accept-Encoding}
   * @param uncompressibleStatuses statuses whose responses are never compressed
   * @param statsUnderResponse whether the direction's stats take a {@code response.} segment (Envoy
   *     adds it when {@code response_direction_config} is set)
   */
  public record Response(RuntimeFlag enabled, long minContentLength, Set<String> contentTypes, boolean disableOnEtag,
      boolean removeAcceptEncoding, Set<Integer> uncompressibleStatuses, boolean statsUnderResponse) {
    public Response {
      contentTypes = Set.copyOf(contentTypes);
      uncompressibleStatuses = Set.copyOf(uncompressibleStatuses);
    }
  }

  /**
   * The request direction ({@code request_direction_config.common_config}): request bodies sent
   * upstream compressed, with {@code Content-Encoding} set.
   *
   * @param enabled {@code enabled} (on when unset)
   * @param minContentLength requests that declare a shorter {@code Content-Length} are sent as they are
   * @param contentTypes lower-cased media types that are compressed
   */
  public record Request(RuntimeFlag enabled, long minContentLength, Set<String> contentTypes) {
    public Request {
      contentTypes = Set.copyOf(contentTypes);
    }
  }

  /**
   * A route's or virtual host's {@code CompressorPerRoute}: {@code disabled} turns response
   * compression off for the route (the filter stays in the chain, as in Envoy, and still counts in
   * the choice of an encoding); {@code overrides.response_direction_config} turns it on, with its
   * own {@code remove_accept_encoding_header} when set.
   *
   * @param responseEnabled whether the route compresses responses; empty: as the filter's config says
   *     ({@code overrides} without {@code response_direction_config})
   * @param removeAcceptEncoding the route's {@code remove_accept_encoding_header}, if it sets one
   */
  public record PerRoute(Optional<Boolean> responseEnabled, Optional<Boolean> removeAcceptEncoding)
      implements RouteFilterConfig {}
}
