package io.spillway.edge.filters.decompressor;

import io.spillway.edge.stats.Counter;
import io.spillway.edge.stats.Scope;

/**
 * A decompressor filter's stats under Envoy's names:
 * {@code http.<stat_prefix>.decompressor.<library name>.<encoding>.request.} and {@code .response.}
 * each {@code decompressed}, {@code not_decompressed}, {@code total_uncompressed_bytes} and
 * {@code total_compressed_bytes}; the library's own under {@code .decompressor_library.}
 * ({@code zlib_data_error}, {@code brotli_error}, {@code zstd_generic_error}: corrupt input or a
 * part past the inflate bound, as Envoy's zlib and brotli decompressors count both).
 */
record DecompressorStats(Direction request, Direction response, Counter libraryError) {

  /** One direction's counters. */
  record Direction(Counter decompressed, Counter notDecompressed, Counter totalUncompressedBytes,
      Counter totalCompressedBytes) {
    static Direction of(Scope scope) {
      return new Direction(scope.counter("decompressed"), scope.counter("not_decompressed"),
          scope.counter("total_uncompressed_bytes"), scope.counter("total_compressed_bytes"));
    }
  }

  /**
   * @param http the connection manager's {@code http.<stat_prefix>.} scope
   * @param errorStat the library's error counter: {@code zlib_data_error}, {@code brotli_error} or
   *     {@code zstd_generic_error}
   */
  static DecompressorStats of(Scope http, String libraryName, String encoding, String errorStat) {
    Scope common = http.scope("decompressor").scope(libraryName).scope(encoding);
    return new DecompressorStats(Direction.of(common.scope("request")), Direction.of(common.scope("response")),
        common.scope("decompressor_library").counter(errorStat));
  }
}
