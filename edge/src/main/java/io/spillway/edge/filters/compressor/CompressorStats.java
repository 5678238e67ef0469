package io.spillway.edge.filters.compressor;

import io.spillway.edge.stats.Counter;
import io.spillway.edge.stats.Scope;

/**
 * A compressor filter's stats, under Envoy's names: {@code http.<stat_prefix>.compressor.<library
 * name>.<encoding>.} and, for the response direction's own counters, a further {@code response.}
 * when the config has a {@code response_direction_config}; the request direction's always under
 * {@code request.} (Envoy keeps them whether or not request compression is configured).
 */
record CompressorStats(
    Direction response,
    Counter noAcceptHeader,
    Counter headerIdentity,
    Counter headerCompressorUsed,
    Counter headerCompressorOvershadowed,
    Counter headerWildcard,
    Counter headerNotValid,
    Counter notCompressedEtag,
    Direction request) {

  /** One direction's common counters. */
  record Direction(Counter compressed, Counter notCompressed, Counter totalUncompressedBytes,
      Counter totalCompressedBytes, Counter contentLengthTooSmall) {
    static Direction of(Scope scope) {
      return new Direction(scope.counter("compressed"), scope.counter("not_compressed"),
          scope.counter("total_uncompressed_bytes"), scope.counter("total_compressed_bytes"),
          scope.counter("content_length_too_small"));
    }
  }

  /**
   * @param http the connection manager's {@code http.<stat_prefix>.} scope
   * @param responseSegment whether the direction's counters live under {@code response.}
   */
  static CompressorStats of(Scope http, String libraryName, String encoding, boolean responseSegment) {
    Scope common = http.scope("compressor").scope(libraryName).scope(encoding);
    Scope direction = responseSegment ? common.scope("response") : common;
    return new CompressorStats(
        Direction.of(direction),
        common.counter("no_accept_header"),
        common.counter("header_identity"),
        common.counter("header_compressor_used"),
        common.counter("header_compressor_overshadowed"),
        common.counter("header_wildcard"),
        common.counter("header_not_valid"),
        common.counter("not_compressed_etag"),
        Direction.of(common.scope("request")));
  }
}
