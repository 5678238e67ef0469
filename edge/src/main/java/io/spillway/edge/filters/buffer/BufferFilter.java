package io.spillway.edge.filters.buffer;

import io.netty.buffer.ByteBuf;
import io.netty.handler.codec.http.HttpHeaderNames;
import io.netty.handler.codec.http.HttpHeaders;
import io.spillway.edge.http.filter.DecoderFilter;
import io.spillway.edge.http.filter.DecoderFilterCallbacks;
import io.spillway.edge.http.filter.FilterChainBuilder;
import io.spillway.edge.http.filter.FilterDataStatus;
import io.spillway.edge.http.filter.FilterHeadersStatus;
import io.spillway.edge.http.filter.FilterTrailersStatus;
import io.spillway.edge.http.filter.HttpFilterFactory;
import io.spillway.edge.http.filter.ResponseFlag;
import io.spillway.edge.http.message.RequestHeaders;
import io.spillway.edge.stats.Counter;

/**
 * Envoy's buffer filter: the rest of the chain sees the request only once its whole body has
 * arrived, at most {@code max_request_bytes}; a larger body — declared by Content-Length, or as it
 * arrives — gets 413. The chain holds the body (no copy); this filter only says when to go on.
 */
public final class BufferFilter implements DecoderFilter {
  private final long maxRequestBytes;
  private final Counter tooLarge;
  private DecoderFilterCallbacks callbacks;

  BufferFilter(long maxRequestBytes, Counter tooLarge) {
    this.maxRequestBytes = maxRequestBytes;
    this.tooLarge = tooLarge;
  }

  /**
   * @param name the entry's name, for typed_per_filter_config
   * @param tooLarge {@code http.<stat_prefix>.downstream_rq_too_large}
   */
  public static HttpFilterFactory factory(String name, long maxRequestBytes, Counter tooLarge) {
    return new HttpFilterFactory() {
      @Override
      public String name() {
        return name;
      }

      @Override
      public void createFilters(FilterChainBuilder chain) {
        chain.addDecoderFilter(new BufferFilter(maxRequestBytes, tooLarge));
      }
    };
  }

  @Override
  public void setDecoderFilterCallbacks(DecoderFilterCallbacks callbacks) {
    this.callbacks = callbacks;
  }

  @Override
  public FilterHeadersStatus decodeHeaders(RequestHeaders headers, boolean endStream) {
    if (endStream) {
      return FilterHeadersStatus.CONTINUE;
    }
    String declared = headers.headers().get(HttpHeaderNames.CONTENT_LENGTH);
    if (declared != null && parse(declared) > maxRequestBytes) {
      tooLarge.inc();
      callbacks.sendLocalReply(413, "Payload Too Large", ResponseFlag.DPE);
      return FilterHeadersStatus.STOP_ITERATION;
    }
    callbacks.setDecoderBufferLimit(maxRequestBytes);
    return FilterHeadersStatus.STOP_ITERATION;
  }

  @Override
  public FilterDataStatus decodeData(ByteBuf data, boolean endStream) {
    return endStream ? FilterDataStatus.CONTINUE : FilterDataStatus.STOP_ITERATION_AND_BUFFER;
  }

  @Override
  public FilterTrailersStatus decodeTrailers(HttpHeaders trailers) {
    return FilterTrailersStatus.CONTINUE;
  }

  private static long parse(String value) {
    try {
      return Long.parseLong(value.trim());
    } catch (NumberFormatException e) {
      return -1; // the codec has already refused a malformed length
    }
  }
}
