package io.spillway.edge.http.filter;

import io.netty.buffer.ByteBuf;
import io.netty.handler.codec.http.HttpHeaders;
import io.spillway.edge.http.message.RequestHeaders;

/**
 * A filter on the request's way in (Envoy's {@code StreamDecoderFilter}). The chain calls it on the
 * worker's loop, in {@code http_filters} order, with the headers once, then every body part, then
 * the trailers if there are any; {@code endStream} marks the last call. The router is the last
 * decoder filter.
 *
 * <p>Data passed to {@link #decodeData} belongs to the chain unless the filter answers
 * {@link FilterDataStatus#STOP_ITERATION_NO_BUFFER}, which hands it to the filter.
 */
public interface DecoderFilter extends StreamFilterBase {

  /** Called once, before any other call. */
  void setDecoderFilterCallbacks(DecoderFilterCallbacks callbacks);

  FilterHeadersStatus decodeHeaders(RequestHeaders headers, boolean endStream);

  default FilterDataStatus decodeData(ByteBuf data, boolean endStream) {
    return FilterDataStatus.CONTINUE;
  }

  /** The request's trailers; they end the request. */
  default FilterTrailersStatus decodeTrailers(HttpHeaders trailers) {
    return FilterTrailersStatus.CONTINUE;
  }

  /** Request body bytes this filter holds itself (the overload manager's memory accounting). */
  default long bufferedBytes() {
    return 0;
  }
}
