package io.spillway.edge.filters.decompressor;

import io.netty.buffer.ByteBuf;
import io.netty.handler.codec.http.HttpHeaderNames;
import io.netty.handler.codec.http.HttpHeaders;
import io.spillway.edge.config.DecompressorConfig;
import io.spillway.edge.filters.compressor.ContentCodings;
import io.spillway.edge.http.filter.DecoderFilterCallbacks;
import io.spillway.edge.http.filter.EncoderFilterCallbacks;
import io.spillway.edge.http.filter.FilterDataStatus;
import io.spillway.edge.http.filter.FilterHeadersStatus;
import io.spillway.edge.http.filter.StreamFilter;
import io.spillway.edge.http.filter.StreamFilterCallbacks;
import io.spillway.edge.http.message.RequestHeaders;
import io.spillway.edge.http.message.ResponseHeaders;
import java.util.List;

/**
 * One stream's decompressor (Envoy's {@code DecompressorFilter}), both directions under the same
 * rules. A body (not a headers-only message) is decoded when its direction is enabled, it has no
 * {@code Cache-Control: no-transform} (RFC 9111 §5.2.2.6; unless {@code ignore_no_transform_header})
 * and the first coding of its {@code Content-Encoding} is the library's (Envoy matches and removes
 * the first one, trimmed, case-insensitively). Then {@code Content-Length} is removed and that
 * coding is taken out of {@code Content-Encoding} (the header goes when it was the only one); each
 * part is decoded as it passes, so bodies keep streaming and are never held whole.
 *
 * <p>Libraries: gzip ({@link GzipDecompressor}), brotli and zstd (the compressor's native bindings).
 * While response decompression is enabled and {@code advertise_accept_encoding} is on, every
 * request goes upstream with the library's coding in {@code Accept-Encoding} (at full preference,
 * once). A body that cannot be decoded — corrupt, or a part decoding past {@code max_inflate_ratio}
 * times its size — ends the stream rather than passing on a truncated body: a request is answered
 * with 400, a response (already started) is reset.
 */
final class DecompressorFilter implements StreamFilter {
  static final String REQUEST_FAILED = "request body could not be decompressed";
  static final String RESPONSE_FAILED = "response body could not be decompressed";
  static final String DETAILS = "decompressor_failed";

  private final DecompressorFactory factory;
  private DecoderFilterCallbacks decoder;
  private EncoderFilterCallbacks encoder;
  private StreamDecompressor requestDecoder;
  private StreamDecompressor responseDecoder;
  /** A body failed to decode: what is left of it is dropped. */
  private boolean requestFailed;
  private boolean responseFailed;

  DecompressorFilter(DecompressorFactory factory) {
    this.factory = factory;
  }

  @Override
  public void setDecoderFilterCallbacks(DecoderFilterCallbacks callbacks) {
    this.decoder = callbacks;
  }

  @Override
  public void setEncoderFilterCallbacks(EncoderFilterCallbacks callbacks) {
    this.encoder = callbacks;
  }

  @Override
  public FilterHeadersStatus decodeHeaders(RequestHeaders request, boolean endStream) {
    DecompressorConfig config = factory.config();
    HttpHeaders headers = request.headers();
    if (config.advertiseAcceptEncoding() && factory.isEnabled(config.response().enabled())) {
      headers.set(HttpHeaderNames.ACCEPT_ENCODING,
          ContentCodings.addToAcceptEncoding(joined(headers, HttpHeaderNames.ACCEPT_ENCODING), config.encoding()));
    }
    if (endStream) {
      return FilterHeadersStatus.CONTINUE;
    }
    if (shouldDecompress(config.request(), headers, factory.stats().request())) {
      requestDecoder = factory.newDecompressor();
    }
    return FilterHeadersStatus.CONTINUE;
  }

  @Override
  public FilterDataStatus decodeData(ByteBuf data, boolean endStream) {
    if (requestFailed) {
      data.release();
      return FilterDataStatus.STOP_ITERATION_NO_BUFFER;
    }
    if (requestDecoder == null) {
      return FilterDataStatus.CONTINUE;
    }
    ByteBuf out = decompress(requestDecoder, data, factory.stats().request());
    if (out == null) {
      requestFailed = true;
      requestDecoder = null;
      fail(decoder, 400, REQUEST_FAILED);
      return FilterDataStatus.STOP_ITERATION_NO_BUFFER;
    }
    if (endStream) {
      requestDecoder.end();
    }
    decoder.injectDecodedData(out);
    return FilterDataStatus.STOP_ITERATION_NO_BUFFER;
  }

  @Override
  public FilterHeadersStatus encodeHeaders(ResponseHeaders response, boolean endStream) {
    if (responseDecoder != null) {
      // A local reply replaces a response that had not reached the client: start over.
      responseDecoder.end();
      responseDecoder = null;
    }
    if (endStream || responseFailed) {
      return FilterHeadersStatus.CONTINUE;
    }
    if (shouldDecompress(factory.config().response(), response.headers(), factory.stats().response())) {
      responseDecoder = factory.newDecompressor();
    }
    return FilterHeadersStatus.CONTINUE;
  }

  @Override
  public FilterDataStatus encodeData(ByteBuf data, boolean endStream) {
    if (responseFailed) {
      data.release();
      return FilterDataStatus.STOP_ITERATION_NO_BUFFER;
    }
    if (responseDecoder == null) {
      return FilterDataStatus.CONTINUE;
    }
    ByteBuf out = decompress(responseDecoder, data, factory.stats().response());
    if (out == null) {
      responseFailed = true;
      responseDecoder = null;
      fail(encoder, 502, RESPONSE_FAILED);
      return FilterDataStatus.STOP_ITERATION_NO_BUFFER;
    }
    if (endStream) {
      responseDecoder.end();
    }
    encoder.injectEncodedData(out);
    return FilterDataStatus.STOP_ITERATION_NO_BUFFER;
  }

  @Override
  public void onDestroy() {
    if (requestDecoder != null) {
      requestDecoder.end();
      requestDecoder = null;
    }
    if (responseDecoder != null) {
      responseDecoder.end();
      responseDecoder = null;
    }
  }

  /** Envoy's {@code maybeInitDecompress}: the headers' verdict, counted, and the headers changed when it decodes. */
  private boolean shouldDecompress(DecompressorConfig.Direction direction, HttpHeaders headers,
      DecompressorStats.Direction stats) {
    String encoding = joined(headers, HttpHeaderNames.CONTENT_ENCODING);
    boolean decode = factory.isEnabled(direction.enabled())
        && (direction.ignoreNoTransform()
            || !ContentCodings.hasToken(joined(headers, HttpHeaderNames.CACHE_CONTROL), "no-transform"))
        && encoding != null && ContentCodings.first(encoding).equalsIgnoreCase(factory.config().encoding());
    if (!decode) {
      stats.notDecompressed().inc();
      return false;
    }
    stats.decompressed().inc();
    headers.remove(HttpHeaderNames.CONTENT_LENGTH);
    String remaining = ContentCodings.withoutFirst(encoding);
    if (remaining.isEmpty()) {
      headers.remove(HttpHeaderNames.CONTENT_ENCODING);
    } else {
      headers.set(HttpHeaderNames.CONTENT_ENCODING, remaining);
    }
    return true;
  }

  /** Decodes one part (which it releases), counting bytes both ways; null when decoding failed. */
  private ByteBuf decompress(StreamDecompressor d, ByteBuf data, DecompressorStats.Direction stats) {
    int compressed = data.readableBytes();
    ByteBuf out;
    try {
      out = d.decompress(data, decoder.worker().allocator());
    } finally {
      data.release();
    }
    if (out == null) {
      factory.stats().libraryError().inc();
      return null;
    }
    stats.totalCompressedBytes().add(compressed);
    stats.totalUncompressedBytes().add(out.readableBytes());
    return out;
  }

  private static void fail(StreamFilterCallbacks callbacks, int status, String body) {
    callbacks.streamInfo().setResponseCodeDetails(DETAILS);
    callbacks.sendLocalReply(status, body, null);
  }

  /** A field's values as one comma-separated value (a field may be sent more than once), or null. */
  private static String joined(HttpHeaders headers, CharSequence name) {
    List<String> values = headers.getAll(name);
    return values.isEmpty() ? null : values.size() == 1 ? values.get(0) : String.join(",", values);
  }
}
