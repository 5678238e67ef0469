package io.spillway.edge.filters.compressor;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import io.netty.handler.codec.http.HttpHeaderNames;
import io.netty.handler.codec.http.HttpHeaders;
import io.spillway.edge.config.CompressorConfig;
import io.spillway.edge.http.filter.DecoderFilterCallbacks;
import io.spillway.edge.http.filter.EncoderFilterCallbacks;
import io.spillway.edge.http.filter.FilterDataStatus;
import io.spillway.edge.http.filter.FilterHeadersStatus;
import io.spillway.edge.http.filter.FilterTrailersStatus;
import io.spillway.edge.http.filter.StreamFilter;
import io.spillway.edge.http.message.RequestHeaders;
import io.spillway.edge.http.message.ResponseHeaders;
import java.util.List;

/**
 * One stream's compressor (Envoy's {@code CompressorFilter}, response direction). On the way in it
 * notes the request's {@code Accept-Encoding} (and removes it when configured). On the way out it
 * compresses the response when all of these hold: compression is on for the route; a declared
 * {@code Content-Length} is at least {@code min_content_length}; the media type is in the list (or
 * there is none); no {@code Cache-Control: no-transform} (RFC 9111 §5.2.2.6); no {@code ETag}
 * when {@code disable_on_etag_header}; no {@code Content-Encoding} yet; the status is not one the
 * config excludes and may carry content; the request is not HEAD; a body follows; and
 * {@code Accept-Encoding} chooses this filter's encoding ({@link EncodingChoice}). It then sets
 * {@code Content-Encoding}, drops {@code Content-Length} (the body goes chunked, or as HTTP/2 DATA)
 * and a strong {@code ETag} (RFC 9110 §8.8.3: the bytes differ; weak ones stay, as Envoy does).
 * A response that could have been compressed gets {@code Vary: Accept-Encoding} either way.
 *
 * <p>Each body part is compressed and flushed as it passes, so streamed responses keep
 * streaming; the last part, or the trailers, end the encoded stream. Trailers pass unchanged.
 *
 * <p>With a {@code request_direction_config} that is on, request bodies go upstream compressed
 * too, under Envoy's rules: a body follows, no upgrade, a declared {@code Content-Length} of at
 * least the direction's minimum, an allowed media type, no {@code Content-Encoding} and no
 * compression in {@code Transfer-Encoding}; {@code Accept-Encoding} plays no part.
 */
final class CompressorFilter implements StreamFilter {
  private final CompressorFactory factory;
  private DecoderFilterCallbacks decoder;
  private EncoderFilterCallbacks encoder;
  /** The request's Accept-Encoding, or null when it had none. */
  private String acceptEncoding;
  private StreamCompressor compressor;
  private StreamCompressor requestCompressor;

  CompressorFilter(CompressorFactory factory) {
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
  public FilterHeadersStatus decodeHeaders(RequestHeaders headers, boolean endStream) {
    List<String> values = headers.headers().getAll(HttpHeaderNames.ACCEPT_ENCODING);
    if (!values.isEmpty()) {
      acceptEncoding = values.size() == 1 ? values.get(0) : String.join(",", values);
    }
    CompressorConfig.PerRoute perRoute = factory.perRoute(decoder.route());
    if (enabled(perRoute) && removeAcceptEncoding(perRoute)) {
      headers.headers().remove(HttpHeaderNames.ACCEPT_ENCODING);
    }
    CompressorStats.Direction stats = factory.stats().request();
    CompressorConfig.Request request = factory.config().request().orElse(null);
    HttpHeaders h = headers.headers();
    if (!endStream && request != null && factory.isEnabled(request.enabled()) && !h.contains(HttpHeaderNames.UPGRADE)
        && longEnough(h, request.minContentLength(), stats)
        && contentTypeAllowed(h, request.contentTypes())
        && !h.contains(HttpHeaderNames.CONTENT_ENCODING)
        && transferEncodingAllowed(h)) {
      h.remove(HttpHeaderNames.CONTENT_LENGTH);
      h.set(HttpHeaderNames.CONTENT_ENCODING, factory.config().encoding());
      stats.compressed().inc();
      requestCompressor = factory.newCompressor();
    } else {
      stats.notCompressed().inc();
    }
    return FilterHeadersStatus.CONTINUE;
  }

  @Override
  public FilterDataStatus decodeData(ByteBuf data, boolean endStream) {
    if (requestCompressor == null) {
      return FilterDataStatus.CONTINUE;
    }
    ByteBuf out = compressRequest(data, endStream);
    data.release();
    decoder.injectDecodedData(out);
    return FilterDataStatus.STOP_ITERATION_NO_BUFFER;
  }

  @Override
  public FilterTrailersStatus decodeTrailers(HttpHeaders trailers) {
    if (requestCompressor != null) {
      decoder.injectDecodedData(compressRequest(Unpooled.EMPTY_BUFFER, true));
    }
    return FilterTrailersStatus.CONTINUE;
  }

  @Override
  public FilterHeadersStatus encodeHeaders(ResponseHeaders response, boolean endStream) {
    if (compressor != null) {
      // A local reply replaces a response that had not reached the client: start over.
      compressor.close();
      compressor = null;
    }
    CompressorConfig.Response config = factory.config().response();
    CompressorStats stats = factory.stats();
    HttpHeaders headers = response.headers();
    boolean bigEnough = enabled(factory.perRoute(encoder.route()))
        && longEnough(headers, config.minContentLength(), stats.response());
    boolean compressible = bigEnough
        && response.mayHaveBody()
        && !config.uncompressibleStatuses().contains(response.status())
        && contentTypeAllowed(headers, config.contentTypes())
        && !ContentCodings.hasToken(headers.get(HttpHeaderNames.CACHE_CONTROL), "no-transform")
        && etagAllowed(headers, config, stats)
        && !headers.contains(HttpHeaderNames.CONTENT_ENCODING);
    if (!endStream && !decoder.requestHeaders().isHead() && acceptEncodingChoosesThis(bigEnough, headers)
        && compressible && transferEncodingAllowed(headers)) {
      removeStrongEtag(headers);
      headers.remove(HttpHeaderNames.CONTENT_LENGTH);
      headers.set(HttpHeaderNames.CONTENT_ENCODING, factory.config().encoding());
      stats.response().compressed().inc();
      compressor = factory.newCompressor();
    } else {
      stats.response().notCompressed().inc();
    }
    if (compressible) {
      addVary(headers);
    }
    return FilterHeadersStatus.CONTINUE;
  }

  @Override
  public FilterDataStatus encodeData(ByteBuf data, boolean endStream) {
    if (compressor == null) {
      return FilterDataStatus.CONTINUE;
    }
    ByteBuf out = compress(data, endStream);
    data.release();
    encoder.injectEncodedData(out);
    return FilterDataStatus.STOP_ITERATION_NO_BUFFER;
  }

  @Override
  public FilterTrailersStatus encodeTrailers(HttpHeaders trailers) {
    if (compressor != null) {
      // The trailers end the body: the encoded stream ends ahead of them.
      encoder.injectEncodedData(compress(Unpooled.EMPTY_BUFFER, true));
    }
    return FilterTrailersStatus.CONTINUE;
  }

  @Override
  public void onDestroy() {
    if (compressor != null) {
      compressor.close();
      compressor = null;
    }
    if (requestCompressor != null) {
      requestCompressor.close();
      requestCompressor = null;
    }
  }

  private ByteBuf compress(ByteBuf data, boolean finish) {
    ByteBuf out = compress(compressor, factory.stats().response(), data, finish);
    if (finish) {
      compressor.close();
      compressor = null;
    }
    return out;
  }

  private ByteBuf compressRequest(ByteBuf data, boolean finish) {
    ByteBuf out = compress(requestCompressor, factory.stats().request(), data, finish);
    if (finish) {
      requestCompressor.close();
      requestCompressor = null;
    }
    return out;
  }

  private ByteBuf compress(StreamCompressor c, CompressorStats.Direction stats, ByteBuf data, boolean finish) {
    stats.totalUncompressedBytes().add(data.readableBytes());
    ByteBuf out = c.compress(data, finish, decoder.worker().allocator());
    stats.totalCompressedBytes().add(out.readableBytes());
    return out;
  }

  private boolean enabled(CompressorConfig.PerRoute perRoute) {
    return perRoute != null && perRoute.responseEnabled().isPresent()
        ? perRoute.responseEnabled().get() : factory.isEnabled(factory.config().response().enabled());
  }

  private boolean removeAcceptEncoding(CompressorConfig.PerRoute perRoute) {
    return perRoute != null && perRoute.removeAcceptEncoding().isPresent()
        ? perRoute.removeAcceptEncoding().get() : factory.config().response().removeAcceptEncoding();
  }

  /** Whether a declared Content-Length reaches the minimum (no Content-Length: yes). */
  private static boolean longEnough(HttpHeaders headers, long minContentLength, CompressorStats.Direction stats) {
    String value = headers.get(HttpHeaderNames.CONTENT_LENGTH);
    if (value == null) {
      return true;
    }
    long length;
    try {
      length = Long.parseLong(value.trim());
    } catch (NumberFormatException e) {
      length = -1;
    }
    if (length < minContentLength) {
      stats.contentLengthTooSmall().inc();
      return false;
    }
    return true;
  }

  private static boolean contentTypeAllowed(HttpHeaders headers, java.util.Set<String> contentTypes) {
    String type = headers.get(HttpHeaderNames.CONTENT_TYPE);
    return type == null || contentTypes.isEmpty() || contentTypes.contains(EncodingChoice.mediaType(type));
  }

  private static boolean etagAllowed(HttpHeaders headers, CompressorConfig.Response config, CompressorStats stats) {
    if (config.disableOnEtag() && headers.contains(HttpHeaderNames.ETAG)) {
      stats.notCompressedEtag().inc();
      return false;
    }
    return true;
  }

  /** Counts the Accept-Encoding outcome and says whether it chose this filter's encoding. */
  private boolean acceptEncodingChoosesThis(boolean maybeCompress, HttpHeaders headers) {
    if (!maybeCompress) {
      return false;
    }
    CompressorStats stats = factory.stats();
    if (acceptEncoding == null) {
      stats.noAcceptHeader().inc();
      return false;
    }
    EncodingChoice.Decision decision = EncodingChoice.choose(acceptEncoding,
        headers.get(HttpHeaderNames.CONTENT_TYPE), factory.chain(), decoder.route());
    boolean chosen = decision.encoding().equalsIgnoreCase(factory.config().encoding());
    switch (decision.kind()) {
      case VALID -> (chosen ? stats.headerCompressorUsed() : stats.headerCompressorOvershadowed()).inc();
      case IDENTITY -> stats.headerIdentity().inc();
      case WILDCARD -> stats.headerWildcard().inc();
      case NOT_VALID -> stats.headerNotValid().inc();
    }
    return chosen;
  }

  /** A body already transfer-coded with a compression (RFC 9112 §7) is left alone. */
  private boolean transferEncodingAllowed(HttpHeaders headers) {
    for (String value : headers.getAll(HttpHeaderNames.TRANSFER_ENCODING)) {
      for (String coding : value.split(",")) {
        String c = coding.trim();
        if (c.equalsIgnoreCase("gzip") || c.equalsIgnoreCase("br") || c.equalsIgnoreCase("deflate")
            || c.equalsIgnoreCase("compress") || c.equalsIgnoreCase("zstd")
            || c.equalsIgnoreCase(factory.config().encoding())) {
          return false;
        }
      }
    }
    return true;
  }

  /** A strong validator no longer matches the compressed bytes; a weak one ({@code W/}) may stay. */
  private static void removeStrongEtag(HttpHeaders headers) {
    String etag = headers.get(HttpHeaderNames.ETAG);
    if (etag != null && etag.length() > 2 && !((etag.charAt(0) == 'W' || etag.charAt(0) == 'w')
        && etag.charAt(1) == '/')) {
      headers.remove(HttpHeaderNames.ETAG);
    }
  }

  private static void addVary(HttpHeaders headers) {
    String vary = headers.get(HttpHeaderNames.VARY);
    if (vary == null) {
      headers.set(HttpHeaderNames.VARY, "Accept-Encoding");
    } else if (!ContentCodings.hasToken(vary, "accept-encoding")) {
      headers.set(HttpHeaderNames.VARY, vary + ", Accept-Encoding");
    }
  }
}
