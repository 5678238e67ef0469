package io.spillway.edge.filters.lua;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.CompositeByteBuf;
import io.netty.handler.codec.http.HttpHeaderNames;
import io.netty.handler.codec.http.HttpHeaders;
import io.spillway.edge.http.filter.DecoderFilterCallbacks;
import io.spillway.edge.http.filter.EncoderFilterCallbacks;
import io.spillway.edge.http.filter.FilterDataStatus;
import io.spillway.edge.http.filter.FilterHeadersStatus;
import io.spillway.edge.http.filter.FilterTrailersStatus;
import io.spillway.edge.http.filter.ResponseFlag;
import io.spillway.edge.http.filter.StreamFilter;
import io.spillway.edge.http.filter.StreamFilterCallbacks;
import io.spillway.edge.http.message.RequestHeaders;
import io.spillway.edge.http.message.ResponseHeaders;

/**
 * One stream through a Lua script (Envoy's Lua {@code Filter}). {@code envoy_on_request} runs on
 * the request, {@code envoy_on_response} on the response, each once, to its end, on the
 * stream's worker. A function that may read the body ({@link io.spillway.edge.lua.LuaScript})
 * is called once the whole message is here: the headers are held, the body gathered here (at
 * most the stream's buffer limit: beyond it the request gets 413 and the response is given up, as
 * a buffering filter's would be) and passed on, as the script left it, after the call. Any other
 * function is called on the headers and the body streams past.
 *
 * <p>A script error is Envoy's: counted in {@code errors}, logged, and the stream goes on as the
 * script left it (Envoy's Lua filter fails open). {@code respond()} answers the request with a
 * local reply once the script has stopped. When the script changed the request's headers (or
 * asked with {@code clearRouteCache()}) and {@code clear_route_cache} is on, the route is
 * matched again before the next filter.
 */
final class LuaFilter implements StreamFilter {
  private final LuaFilterFactory factory;
  private DecoderFilterCallbacks decoder;
  private EncoderFilterCallbacks encoder;
  private WorkerScript script;
  private boolean resolved;
  private RequestHeaders requestHeaders;
  private CompositeByteBuf requestBody;
  private boolean bufferingRequest;
  private ResponseHeaders responseHeaders;
  private CompositeByteBuf responseBody;
  private boolean bufferingResponse;

  LuaFilter(LuaFilterFactory factory) {
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

  private WorkerScript script(StreamFilterCallbacks stream) {
    if (!resolved) {
      resolved = true;
      script = factory.scriptFor(stream.route(), stream.worker());
    }
    return script;
  }

  // ---- request -----------------------------------------------------------------------------

  @Override
  public FilterHeadersStatus decodeHeaders(RequestHeaders headers, boolean endStream) {
    WorkerScript s = script(decoder);
    if (s == null || !s.script().hasOnRequest()) {
      return FilterHeadersStatus.CONTINUE;
    }
    if (endStream || !s.script().requestReadsBody()) {
      return onRequest(headers, endStream) ? FilterHeadersStatus.STOP_ITERATION
          : FilterHeadersStatus.CONTINUE;
    }
    if (declaredLength(headers.headers()) > decoder.decoderBufferLimit()) {
      requestTooLarge();
      return FilterHeadersStatus.STOP_ITERATION;
    }
    requestHeaders = headers;
    bufferingRequest = true;
    return FilterHeadersStatus.STOP_ITERATION;
  }

  @Override
  public FilterDataStatus decodeData(ByteBuf data, boolean endStream) {
    if (!bufferingRequest) {
      return FilterDataStatus.CONTINUE;
    }
    requestBody = append(requestBody, data);
    if (requestBody.readableBytes() > decoder.decoderBufferLimit()) {
      bufferingRequest = false;
      requestTooLarge();
      return FilterDataStatus.STOP_ITERATION_NO_BUFFER;
    }
    if (endStream) {
      bufferingRequest = false;
      ByteBuf body = takeRequestBody();
      ByteBuf out = runBuffered(true, body, null);
      if (out != null) {
        decoder.injectDecodedData(out);
      }
    }
    return FilterDataStatus.STOP_ITERATION_NO_BUFFER;
  }

  @Override
  public FilterTrailersStatus decodeTrailers(HttpHeaders trailers) {
    if (!bufferingRequest) {
      return FilterTrailersStatus.CONTINUE;
    }
    bufferingRequest = false;
    ByteBuf out = runBuffered(true, takeRequestBody(), trailers);
    if (out == null) {
      return FilterTrailersStatus.STOP_ITERATION;
    }
    if (out.isReadable()) {
      decoder.injectDecodedData(out);
    } else {
      out.release();
    }
    return FilterTrailersStatus.CONTINUE;
  }

  private void requestTooLarge() {
    releaseBodies();
    factory.tooLarge.inc();
    decoder.sendLocalReply(413, "Payload Too Large", ResponseFlag.DPE);
  }

  /** Runs envoy_on_request on the headers (the body streams past); true when it answered the request. */
  private boolean onRequest(RequestHeaders headers, boolean endStream) {
    LuaCall call = new LuaCall(true, factory.name(), decoder, c -> LuaHeaderMap.of(c, headers), false, endStream,
        null, null);
    boolean replied = runRequest(call);
    releaseQuietly(call.takeBody());
    return replied;
  }

  // ---- response ----------------------------------------------------------------------------

  @Override
  public FilterHeadersStatus encodeHeaders(ResponseHeaders headers, boolean endStream) {
    WorkerScript s = script(encoder);
    if (s == null || !s.script().hasOnResponse()) {
      return FilterHeadersStatus.CONTINUE;
    }
    if (endStream || !s.script().responseReadsBody()) {
      LuaCall call = responseCall(headers, endStream, null, null);
      run(call);
      releaseQuietly(call.takeBody());
      return FilterHeadersStatus.CONTINUE;
    }
    if (declaredLength(headers.headers()) > decoder.decoderBufferLimit()) {
      responseTooLarge();
      return FilterHeadersStatus.STOP_ITERATION;
    }
    responseHeaders = headers;
    bufferingResponse = true;
    return FilterHeadersStatus.STOP_ITERATION;
  }

  @Override
  public FilterDataStatus encodeData(ByteBuf data, boolean endStream) {
    if (!bufferingResponse) {
      return FilterDataStatus.CONTINUE;
    }
    responseBody = append(responseBody, data);
    if (responseBody.readableBytes() > decoder.decoderBufferLimit()) {
      bufferingResponse = false;
      responseTooLarge();
      return FilterDataStatus.STOP_ITERATION_NO_BUFFER;
    }
    if (endStream) {
      bufferingResponse = false;
      encoder.injectEncodedData(runBuffered(false, takeResponseBody(), null));
    }
    return FilterDataStatus.STOP_ITERATION_NO_BUFFER;
  }

  @Override
  public FilterTrailersStatus encodeTrailers(HttpHeaders trailers) {
    if (!bufferingResponse) {
      return FilterTrailersStatus.CONTINUE;
    }
    bufferingResponse = false;
    ByteBuf out = runBuffered(false, takeResponseBody(), trailers);
    if (out.isReadable()) {
      encoder.injectEncodedData(out);
    } else {
      out.release();
    }
    return FilterTrailersStatus.CONTINUE;
  }

  private void responseTooLarge() {
    releaseBodies();
    encoder.sendLocalReply(500, "Internal Server Error", null);
  }

  private LuaCall responseCall(ResponseHeaders headers, boolean endStream, ByteBuf body, HttpHeaders trailers) {
    return new LuaCall(false, factory.name(), encoder, c -> LuaHeaderMap.of(c, headers),
        body != null, endStream, body, trailers);
  }

  // ---- calls -------------------------------------------------------------------------------

  /**
   * Runs the flow's function on the whole message; returns the body to pass on (owned by the
   * caller), or null when the request was answered instead.
   */
  private ByteBuf runBuffered(boolean request, ByteBuf body, HttpHeaders trailers) {
    LuaCall call = request
        ? new LuaCall(true, factory.name(), decoder, c -> LuaHeaderMap.of(c, requestHeaders), true, false, body,
            trailers)
        : responseCall(responseHeaders, false, body, trailers);
    if (request) {
      if (runRequest(call)) {
        releaseQuietly(call.takeBody());
        return null;
      }
    } else {
      run(call);
    }
    return call.takeBody();
  }

  /** Runs envoy_on_request, then what it asked for: the reply, or a new route match. True when it replied. */
  private boolean runRequest(LuaCall call) {
    run(call);
    ResponseHeaders reply = call.replyHeaders();
    if (reply != null) {
      sendReply(reply, call.takeReplyBody());
      return true;
    }
    if (call.routeCacheCleared(factory.clearRouteCache())) {
      decoder.clearRouteCache();
    }
    return false;
  }

  /** {@code respond()}'s reply, as Envoy's local reply: its length, {@code text/plain} unless the script set a type. */
  private void sendReply(ResponseHeaders reply, ByteBuf body) {
    decoder.streamInfo().setResponseCodeDetails("lua_response");
    HttpHeaders h = reply.headers();
    int length = body == null ? 0 : body.readableBytes();
    h.set(HttpHeaderNames.CONTENT_LENGTH, Integer.toString(length));
    if (length > 0 && !h.contains(HttpHeaderNames.CONTENT_TYPE)) {
      h.set(HttpHeaderNames.CONTENT_TYPE, "text/plain");
    }
    decoder.sendLocalReply(reply, body, null);
  }

  private void run(LuaCall call) {
    factory.executions.inc();
    String error = script.run(call.isRequest(), call);
    if (error != null) {
      factory.scriptError(error);
    }
  }

  // ---- buffers -----------------------------------------------------------------------------

  private CompositeByteBuf append(CompositeByteBuf body, ByteBuf data) {
    if (body == null) {
      body = decoder.worker().allocator().compositeBuffer(Integer.MAX_VALUE);
    }
    return body.addComponent(true, data);
  }

  private ByteBuf takeRequestBody() {
    ByteBuf b = requestBody != null ? requestBody : decoder.worker().allocator().buffer(0);
    requestBody = null;
    return b;
  }

  private ByteBuf takeResponseBody() {
    ByteBuf b = responseBody != null ? responseBody : decoder.worker().allocator().buffer(0);
    responseBody = null;
    return b;
  }

  private static long declaredLength(HttpHeaders headers) {
    String value = headers.get(HttpHeaderNames.CONTENT_LENGTH);
    if (value == null) {
      return -1;
    }
    try {
      return Long.parseLong(value.trim());
    } catch (NumberFormatException e) {
      return -1; // the codec has already refused a malformed length
    }
  }

  private static void releaseQuietly(ByteBuf b) {
    if (b != null && b.refCnt() > 0) {
      b.release();
    }
  }

  private void releaseBodies() {
    releaseQuietly(requestBody);
    requestBody = null;
    releaseQuietly(responseBody);
    responseBody = null;
  }

  @Override
  public long bufferedBytes() {
    return requestBody == null ? 0 : requestBody.readableBytes();
  }

  @Override
  public void onDestroy() {
    bufferingRequest = false;
    bufferingResponse = false;
    releaseBodies();
  }
}
