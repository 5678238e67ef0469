package io.spillway.edge.http.filter;

import io.netty.buffer.ByteBuf;
import io.netty.handler.codec.http.HttpHeaders;
import io.spillway.edge.http.message.ResponseHeaders;

/**
 * A filter on the response's way out (Envoy's {@code StreamEncoderFilter}). Encoder filters run in
 * the reverse of {@code http_filters} order, and see local replies too. Ownership of data follows
 * the same rule as for {@link DecoderFilter}.
 */
public interface EncoderFilter extends StreamFilterBase {

  /** Called once, before any other call. */
  void setEncoderFilterCallbacks(EncoderFilterCallbacks callbacks);

  FilterHeadersStatus encodeHeaders(ResponseHeaders headers, boolean endStream);

  default FilterDataStatus encodeData(ByteBuf data, boolean endStream) {
    return FilterDataStatus.CONTINUE;
  }

  default FilterTrailersStatus encodeTrailers(HttpHeaders trailers) {
    return FilterTrailersStatus.CONTINUE;
  }
}
