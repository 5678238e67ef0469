package io.spillway.edge.http;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.CompositeByteBuf;
import io.netty.handler.codec.http.HttpHeaders;
import io.spillway.edge.http.filter.DecoderFilter;
import io.spillway.edge.http.filter.EncoderFilter;
import io.spillway.edge.http.filter.EncoderFilterCallbacks;
import io.spillway.edge.http.filter.FilterChainBuilder;
import io.spillway.edge.http.filter.FilterDataStatus;
import io.spillway.edge.http.filter.FilterHeadersStatus;
import io.spillway.edge.http.filter.FilterTrailersStatus;
import io.spillway.edge.http.filter.ResponseFlag;
import io.spillway.edge.http.filter.StreamFilterBase;
import io.spillway.edge.http.message.RequestHeaders;
import io.spillway.edge.http.message.ResponseHeaders;

/**
 * One stream's filter instances and the two iterations over them: decoder filters in
 * {@code http_filters} order, encoder filters in reverse, as in Envoy. After the last decoder
 * filter nothing follows (the router is terminal and takes every part); after the last encoder
 * filter the response goes to the client through the stream.
 */
final class FilterChain implements FilterChainBuilder {

  private final HttpStream stream;
  private DecoderFilter[] decoders;
  private int decoderCount;
  private EncoderFilter[] encoders;
  private int encoderCount;
  private StreamFilterBase[] all;
  private int allCount;
  private EncoderFilterCallbacks encoderCallbacks;
  private long decoderBufferLimit;
  private Decoding decoding;
  private Encoding encoding;
  private boolean destroyed;

  FilterChain(HttpStream stream, int capacity) {
    this.stream = stream;
    int n = Math.max(1, capacity);
    this.decoders = new DecoderFilter[n];
    this.encoders = new EncoderFilter[n];
    this.all = new StreamFilterBase[n];
  }

  // ---- building ------------------------------------------------------------------------------

  void setDecoderBufferLimitDefault(long bytes) {
    decoderBufferLimit = bytes;
  }

  @Override
  public void addDecoderFilter(DecoderFilter filter) {
    if (decoderCount == decoders.length) {
      decoders = java.util.Arrays.copyOf(decoders, decoderCount * 2);
    }
    decoders[decoderCount++] = filter;
    remember(filter);
    filter.setDecoderFilterCallbacks(stream);
  }

  @Override
  public void addEncoderFilter(EncoderFilter filter) {
    if (encoderCount == encoders.length) {
      encoders = java.util.Arrays.copyOf(encoders, encoderCount * 2);
    }
    encoders[encoderCount++] = filter;
    remember(filter);
    if (encoderCallbacks == null) {
      encoderCallbacks = stream.encoderCallbacks();
    }
    filter.setEncoderFilterCallbacks(encoderCallbacks);
  }

  private void remember(StreamFilterBase filter) {
    if (allCount > 0 && all[allCount - 1] == filter) {
      return; // a stream filter, added to both directions
    }
    if (allCount == all.length) {
      all = java.util.Arrays.copyOf(all, allCount * 2);
    }
    all[allCount++] = filter;
  }

  // ---- decoding ------------------------------------------------------------------------------

  void decodeHeaders(RequestHeaders headers, boolean endStream) {
    decoding = new Decoding(decoderCount);
    decoding.headers(headers, endStream);
  }

  void decodeData(ByteBuf data, boolean endStream) {
    if (decoding == null) {
      data.release();
      return;
    }
    decoding.data(data, endStream);
  }

  void decodeTrailers(HttpHeaders trailers) {
    if (decoding != null) {
      decoding.trailers(trailers);
    }
  }

  void continueDecoding() {
    if (decoding != null) {
      decoding.continueIteration();
    }
  }

  /** A decoder filter's own body part, from inside its data or trailers callback. */
  void injectDecodedData(ByteBuf data) {
    if (decoding == null) {
      data.release();
      return;
    }
    decoding.inject(data);
  }

  long decoderBufferLimit() {
    return decoderBufferLimit;
  }

  void setDecoderBufferLimit(long bytes) {
    decoderBufferLimit = bytes;
  }

  /** Request bytes held: the chain's buffer plus what each decoder filter keeps itself. */
  long heldRequestBytes() {
    long held = decoding == null ? 0 : decoding.bufferedBytes();
    for (int i = 0; i < decoderCount; i++) {
      held += decoders[i].bufferedBytes();
    }
    return held;
  }

  // ---- encoding ------------------------------------------------------------------------------

  void encodeHeaders(ResponseHeaders headers, boolean endStream) {
    encoding = new Encoding(encoderCount);
    encoding.headers(headers, endStream);
  }

  void encodeData(ByteBuf data, boolean endStream) {
    if (encoding == null) {
      data.release();
      return;
    }
    encoding.data(data, endStream);
  }

  void encodeTrailers(HttpHeaders trailers) {
    if (encoding != null) {
      encoding.trailers(trailers);
    }
  }

  void continueEncoding() {
    if (encoding != null) {
      encoding.continueIteration();
    }
  }

  /** An encoder filter's own body part, from inside its data or trailers callback. */
  void injectEncodedData(ByteBuf data) {
    if (encoding == null) {
      data.release();
      return;
    }
    encoding.inject(data);
  }

  /** A local reply replaces whatever response was on its way through the encoder filters. */
  void encodeLocalReply(ResponseHeaders headers, ByteBuf body) {
    if (encoding != null) {
      encoding.release();
    }
    encoding = new Encoding(encoderCount);
    encoding.headers(headers, body == null);
    if (body != null) {
      encoding.data(body, true);
    }
  }

  // ---- the end -------------------------------------------------------------------------------

  /** Destroys every filter once and releases both buffers. */
  void destroy() {
    if (destroyed) {
      return;
    }
    destroyed = true;
    if (decoding != null) {
      decoding.release();
    }
    if (encoding != null) {
      encoding.release();
    }
    for (int i = 0; i < allCount; i++) {
      all[i].onDestroy();
    }
  }

  private boolean ended() {
    return destroyed || stream.isFinished();
  }

  /** The request's iteration. */
  private final class Decoding extends FilterIteration<RequestHeaders> {
    Decoding(int count) {
      super(count);
    }

    @Override
    FilterHeadersStatus callHeaders(int index, RequestHeaders headers, boolean endStream) {
      return decoders[index].decodeHeaders(headers, endStream);
    }

    @Override
    FilterDataStatus callData(int index, ByteBuf data, boolean endStream) {
      return decoders[index].decodeData(data, endStream);
    }

    @Override
    FilterTrailersStatus callTrailers(int index, HttpHeaders trailers) {
      return decoders[index].decodeTrailers(trailers);
    }

    @Override
    void sinkHeaders(RequestHeaders headers, boolean endStream) {
      // No terminal filter took the request (a chain without a router): nothing to send it to.
    }

    @Override
    void sinkData(ByteBuf data, boolean endStream) {
      data.release();
    }

    @Override
    void sinkTrailers(HttpHeaders trailers) {}

    @Override
    boolean ended() {
      return FilterChain.this.ended() || stream.decodingStopped();
    }

    @Override
    long bufferLimit() {
      return decoderBufferLimit;
    }

    @Override
    void overLimit() {
      stream.hcmStats().downstreamRqTooLarge.inc();
      stream.sendLocalReply(413, "Payload Too Large", ResponseFlag.DPE);
    }

    @Override
    void watermark(boolean above) {
      stream.readDisable(above);
    }

    @Override
    CompositeByteBuf newBuffer() {
      return stream.newBuffer();
    }
  }

  /** The response's iteration: encoder filters in reverse order, then the client. */
  private final class Encoding extends FilterIteration<ResponseHeaders> {
    Encoding(int count) {
      super(count);
    }

    @Override
    FilterHeadersStatus callHeaders(int index, ResponseHeaders headers, boolean endStream) {
      return encoders[encoderCount - 1 - index].encodeHeaders(headers, endStream);
    }

    @Override
    FilterDataStatus callData(int index, ByteBuf data, boolean endStream) {
      return encoders[encoderCount - 1 - index].encodeData(data, endStream);
    }

    @Override
    FilterTrailersStatus callTrailers(int index, HttpHeaders trailers) {
      return encoders[encoderCount - 1 - index].encodeTrailers(trailers);
    }

    @Override
    void sinkHeaders(ResponseHeaders headers, boolean endStream) {
      stream.sendResponseHeaders(headers, endStream);
    }

    @Override
    void sinkData(ByteBuf data, boolean endStream) {
      stream.sendResponseData(data, endStream);
    }

    @Override
    void sinkTrailers(HttpHeaders trailers) {
      stream.sendResponseTrailers(trailers);
    }

    @Override
    boolean ended() {
      return FilterChain.this.ended() || encoding != this;
    }

    @Override
    long bufferLimit() {
      return decoderBufferLimit;
    }

    @Override
    void overLimit() {
      stream.responseOverLimit();
    }

    @Override
    void watermark(boolean above) {
      // Response back-pressure reaches the upstream through the router's watermark callbacks.
    }

    @Override
    CompositeByteBuf newBuffer() {
      return stream.newBuffer();
    }
  }
}
