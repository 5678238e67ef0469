package io.spillway.edge.filters.lua;

import io.netty.buffer.ByteBuf;
import io.netty.handler.codec.http.HttpHeaders;
import io.spillway.edge.http.filter.StreamFilterCallbacks;
import io.spillway.edge.http.message.ResponseHeaders;
import io.spillway.edge.lua.InstructionBudget;
import org.luaj.vm2.LuaError;

/**
 * One call into a script, {@code envoy_on_request} or {@code envoy_on_response}: what its
 * handle reaches (the headers, the buffered body and trailers when the function may read them,
 * the stream's route and info) and what it asked for ({@code respond()}, a new route match).
 * Every object the script got through the handle dies with the call: a script that keeps one in
 * a global and uses it on a later request gets a Lua error, never another stream's data.
 */
final class LuaCall {
  private final boolean request;
  private final String filterName;
  private final StreamFilterCallbacks stream;
  private InstructionBudget budget;
  private final boolean buffered;
  private final boolean endOfStreamOnHeaders;
  final LuaHeaderMap headers;
  private LuaBody body;
  private final HttpHeaders trailers;
  private LuaHeaderMap trailerMap;
  private boolean live = true;
  private ResponseHeaders replyHeaders;
  private ByteBuf replyBody;
  private boolean clearRouteCache;

  /**
   * @param request the request flow (else the response flow)
   * @param buffered whether the whole message is here: {@code body()} and {@code trailers()} may be used
   * @param endOfStreamOnHeaders the message has no body at all
   * @param body the buffered body (owned by the call until taken), null when none or not buffered
   * @param trailers the trailers, or null
   */
  LuaCall(boolean request, String filterName, StreamFilterCallbacks stream, LuaHeaderMapFactory headers,
      boolean buffered, boolean endOfStreamOnHeaders, ByteBuf body, HttpHeaders trailers) {
    this.request = request;
    this.filterName = filterName;
    this.stream = stream;
    this.buffered = buffered;
    this.endOfStreamOnHeaders = endOfStreamOnHeaders;
    this.headers = headers.create(this);
    this.trailers = trailers;
    if (body != null) {
      this.body = new LuaBody(this, this.headers, stream.worker().allocator(), body);
    }
  }

  /** How a call gets its header map (it needs the call to exist). */
  @FunctionalInterface
  interface LuaHeaderMapFactory {
    LuaHeaderMap create(LuaCall call);
  }

  boolean isRequest() {
    return request;
  }

  String filterName() {
    return filterName;
  }

  StreamFilterCallbacks stream() {
    return stream;
  }

  boolean endOfStreamOnHeaders() {
    return endOfStreamOnHeaders;
  }

  /** Fails the script when it uses a handle after its call. */
  void checkLive() {
    if (!live) {
      throw new LuaError("this object belongs to a call that has ended: a stream handle may not be kept");
    }
  }

  /** The body, or null when the message has none and {@code alwaysWrap} is false. */
  LuaBody body(boolean alwaysWrap) {
    checkLive();
    requireBuffered("body()");
    if (body == null && (alwaysWrap || !endOfStreamOnHeaders)) {
      body = new LuaBody(this, headers, stream.worker().allocator(), stream.worker().allocator().buffer(0));
    }
    return body;
  }

  /** The trailers, or null when the message has none. */
  LuaHeaderMap trailers() {
    checkLive();
    requireBuffered("trailers()");
    if (trailers == null) {
      return null;
    }
    if (trailerMap == null) {
      trailerMap = LuaHeaderMap.trailers(this, trailers);
    }
    return trailerMap;
  }

  private void requireBuffered(String what) {
    if (!buffered && !endOfStreamOnHeaders) {
      throw new LuaError(what + " is only available to a function whose code names it: Spillway buffers the"
          + " body before the call only then (scripts cannot be suspended)");
    }
  }

  /** {@code respond()}: the reply is sent once the script has stopped, which it does at its next instruction. */
  void respond(ResponseHeaders headers, ByteBuf body) {
    checkLive();
    if (!request) {
      if (body != null) {
        body.release();
      }
      throw new LuaError("respond() is not supported in the response flow");
    }
    replyHeaders = headers;
    replyBody = body;
    budget.stop();
  }

  void clearRouteCache() {
    checkLive();
    clearRouteCache = true;
  }

  /** The call starts under this budget ({@code respond()} stops the script through it). */
  void start(InstructionBudget budget) {
    this.budget = budget;
  }

  /** Ends the call: nothing the script holds works any more. */
  void end() {
    live = false;
  }

  /** The reply {@code respond()} asked for, or null. */
  ResponseHeaders replyHeaders() {
    return replyHeaders;
  }

  /** The reply's body (the caller takes it), or null. */
  ByteBuf takeReplyBody() {
    ByteBuf b = replyBody;
    replyBody = null;
    return b;
  }

  /** Whether the route must be matched again (the script asked, or changed the request's headers). */
  boolean routeCacheCleared(boolean onHeaderChange) {
    return clearRouteCache || (request && onHeaderChange && headers.modified());
  }

  /** The body as the script left it (the caller owns it), or null when there was none. */
  ByteBuf takeBody() {
    return body == null ? null : body.take();
  }
}
