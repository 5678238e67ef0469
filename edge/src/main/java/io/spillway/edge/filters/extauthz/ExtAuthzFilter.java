package io.spillway.edge.filters.extauthz;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.CompositeByteBuf;
import io.netty.handler.codec.http.HttpHeaders;
import io.spillway.edge.authz.AuthzHeader;
import io.spillway.edge.config.ExtAuthzConfig;
import io.spillway.edge.http.filter.DecoderFilterCallbacks;
import io.spillway.edge.http.filter.EncoderFilterCallbacks;
import io.spillway.edge.http.filter.FilterDataStatus;
import io.spillway.edge.http.filter.FilterHeadersStatus;
import io.spillway.edge.http.filter.FilterTrailersStatus;
import io.spillway.edge.http.filter.ResponseFlag;
import io.spillway.edge.http.filter.StreamFilter;
import io.spillway.edge.http.message.RequestHeaders;
import io.spillway.edge.http.message.ResponseHeaders;
import java.util.List;

/**
 * One request's ext_authz filter: holds the request while its {@link AuthzCheck} runs (body parts
 * wait in the chain's buffer, reading pauses past the buffer limit), then lets it through or
 * answers it; on the way out it applies the OK answer's response headers. A route's
 * {@code typed_per_filter_config} that disables it removes it from that route's chain.
 *
 * <p>With {@code with_request_body} (Envoy's {@code decodeHeaders}/{@code decodeData}) the check
 * waits for the body: until its end, or — with {@code allow_partial_message} — until
 * {@code max_request_bytes} have arrived; without it a larger body gets 413 from the chain (the
 * buffer limit is lowered to {@code max_request_bytes}). A request without a body, or an upgrade,
 * is checked at once.
 */
final class ExtAuthzFilter implements StreamFilter, AuthzCheck.Verdict {
  private final ExtAuthzFactory factory;
  private DecoderFilterCallbacks decoder;
  private RequestHeaders requestHeaders;
  private AuthzCheck check;
  /** with_request_body: the body so far (retained views of the chain's parts), until the check starts. */
  private CompositeByteBuf buffered;
  private boolean buffering;
  private boolean inStart;
  private boolean allowedInline;
  private List<AuthzHeader> responseHeaders = List.of();

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
    requestHeaders = headers;
    ExtAuthzConfig.RequestBody body = factory.config().requestBody().orElse(null);
    if (body != null && !endStream && !isUpgrade(headers)) {
      buffering = true;
      buffered = decoder.worker().allocator().compositeBuffer(Integer.MAX_VALUE);
      if (!body.allowPartialMessage()) {
        decoder.setDecoderBufferLimit(body.maxRequestBytes());
      }
      return FilterHeadersStatus.STOP_ITERATION;
    }
    return startCheck(null, false) ? FilterHeadersStatus.CONTINUE : FilterHeadersStatus.STOP_ITERATION;
  }

  @Override
  public FilterDataStatus decodeData(ByteBuf data, boolean endStream) {
    if (buffering) {
      if (data.isReadable()) {
        buffered.addComponent(true, data.retainedDuplicate());
      }
      ExtAuthzConfig.RequestBody body = factory.config().requestBody().orElseThrow();
      if (!body.allowPartialMessage() && buffered.readableBytes() > body.maxRequestBytes()) {
        // Also when the part ends the body: the chain only enforces the limit on what it buffers.
        buffering = false;
        buffered.release();
        buffered = null;
        factory.tooLarge.inc();
        data.release();
        decoder.sendLocalReply(413, "Payload Too Large", ResponseFlag.DPE);
        return FilterDataStatus.STOP_ITERATION_NO_BUFFER;
      }
      boolean full = body.allowPartialMessage() && buffered.readableBytes() >= body.maxRequestBytes();
      if (!endStream && !full) {
        return FilterDataStatus.STOP_ITERATION_AND_BUFFER;
      }
      return startWithBody() ? FilterDataStatus.CONTINUE : FilterDataStatus.STOP_ITERATION_AND_WATERMARK;
    }
    return check != null ? FilterDataStatus.STOP_ITERATION_AND_WATERMARK : FilterDataStatus.CONTINUE;
  }

  @Override
  public FilterTrailersStatus decodeTrailers(HttpHeaders trailers) {
    if (buffering) {
      return startWithBody() ? FilterTrailersStatus.CONTINUE : FilterTrailersStatus.STOP_ITERATION;
    }
    return check != null ? FilterTrailersStatus.STOP_ITERATION : FilterTrailersStatus.CONTINUE;
  }

  /** The body is complete (or enough of it): the check starts with its first max_request_bytes. */
  private boolean startWithBody() {
    buffering = false;
    CompositeByteBuf all = buffered;
    buffered = null;
    int max = factory.config().requestBody().orElseThrow().maxRequestBytes();
    int length = Math.min(all.readableBytes(), max);
    try {
      return startCheck(all.slice(all.readerIndex(), length), all.readableBytes() > max);
    } finally {
      all.release();
    }
  }

  /** Starts the check; true when it let the request through at once. */
  private boolean startCheck(ByteBuf body, boolean partial) {
    check = factory.grpcClient() != null
        ? new GrpcAuthzCheck(factory, this, decoder, requestHeaders)
        : new ExtAuthzCheck(factory, this, factory.context(), decoder.worker(), requestHeaders, decoder.connectionShare());
    inStart = true;
    try {
      check.start(body, partial);
    } finally {
      inStart = false;
    }
    return allowedInline;
  }

  /** An upgrade (WebSocket over HTTP/1.1, extended CONNECT over HTTP/2) is checked without its body. */
  private static boolean isUpgrade(RequestHeaders headers) {
    return headers.headers().contains("upgrade") || headers.method().equals("CONNECT");
  }

  @Override
  public void onAuthzAllowed(List<AuthzHeader> headers) {
    check = null;
    responseHeaders = headers;
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
    if (!responseHeaders.isEmpty()) {
      int invalid = HeaderChanges.apply(responseHeaders, headers.headers());
      if (invalid > 0) {
        factory.invalid.add(invalid);
      }
    }
    return FilterHeadersStatus.CONTINUE;
  }

  @Override
  public void onDestroy() {
    if (buffered != null) {
      buffered.release();
      buffered = null;
    }
    if (check != null) {
      check.cancel(); // gives back the auth call's guard permit and cluster slot, once
      check = null;
    }
  }
}
