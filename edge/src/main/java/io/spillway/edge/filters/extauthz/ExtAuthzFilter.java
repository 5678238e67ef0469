package io.spillway.edge.filters.extauthz;

import io.netty.buffer.ByteBuf;
import io.netty.handler.codec.http.HttpHeaders;
import io.spillway.edge.http.filter.DecoderFilterCallbacks;
import io.spillway.edge.http.filter.EncoderFilterCallbacks;
import io.spillway.edge.http.filter.FilterDataStatus;
import io.spillway.edge.http.filter.FilterHeadersStatus;
import io.spillway.edge.http.filter.FilterTrailersStatus;
import io.spillway.edge.http.filter.ResponseFlag;
import io.spillway.edge.http.filter.StreamFilter;
import io.spillway.edge.http.message.RequestHeaders;
import io.spillway.edge.http.message.ResponseHeaders;

/**
 * One request's ext_authz filter: holds the request while its {@link ExtAuthzCheck} runs (body
 * parts wait in the chain's buffer, reading pauses past the buffer limit), then lets it through or
 * answers it; on the way out it adds the OK answer's {@code allowed_client_headers_on_success} to
 * the response. A route's {@code typed_per_filter_config} that disables it removes it from that
 * route's chain.
 */
final class ExtAuthzFilter implements StreamFilter, ExtAuthzCheck.Verdict {
  private final ExtAuthzFactory factory;
  private DecoderFilterCallbacks decoder;
  private ExtAuthzCheck check;
  private boolean inStart;
  private boolean allowedInline;
  private HttpHeaders clientHeaders;

  ExtAuthzFilter(ExtAuthzFactory factory) {
    this.factory = factory;
  }

  @Override
  public void setDecoderFilterCallbacks(DecoderFilterCallbacks callbacks) {
    this.decoder = callbacks;
  }

  @Override
  public void setEncoderFilterCallbacks(EncoderFilterCallbacks callbacks) {}

  @Override
  public FilterHeadersStatus decodeHeaders(RequestHeaders headers, boolean endStream) {
    check = new ExtAuthzCheck(factory, this, factory.context(), decoder.worker(), headers, decoder.connectionShare());
    inStart = true;
    try {
      check.start();
    } finally {
      inStart = false;
    }
    if (allowedInline) {
      return FilterHeadersStatus.CONTINUE;
    }
    return FilterHeadersStatus.STOP_ITERATION;
  }

  @Override
  public FilterDataStatus decodeData(ByteBuf data, boolean endStream) {
    return check != null ? FilterDataStatus.STOP_ITERATION_AND_WATERMARK : FilterDataStatus.CONTINUE;
  }

  @Override
  public FilterTrailersStatus decodeTrailers(HttpHeaders trailers) {
    return check != null ? FilterTrailersStatus.STOP_ITERATION : FilterTrailersStatus.CONTINUE;
  }

  @Override
  public void onAuthzAllowed(HttpHeaders headers) {
    check = null;
    clientHeaders = headers;
    if (inStart) {
      allowedInline = true;
    } else {
      decoder.continueDecoding();
    }
  }

  @Override
  public void onAuthzReply(int status, HttpHeaders headers, ByteBuf body, ResponseFlag flag) {
    check = null;
    decoder.sendLocalReply(new ResponseHeaders(status, headers), body.isReadable() ? body : release(body), flag);
  }

  private static ByteBuf release(ByteBuf body) {
    body.release();
    return null;
  }

  @Override
  public FilterHeadersStatus encodeHeaders(ResponseHeaders headers, boolean endStream) {
    if (clientHeaders != null) {
      headers.headers().add(clientHeaders);
    }
    return FilterHeadersStatus.CONTINUE;
  }

  @Override
  public void onDestroy() {
    if (check != null) {
      check.cancel(); // gives back the auth call's guard permit and cluster slot, once
      check = null;
    }
  }
}
