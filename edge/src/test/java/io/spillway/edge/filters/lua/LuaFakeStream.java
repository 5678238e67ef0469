package io.spillway.edge.filters.lua;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.UnpooledByteBufAllocator;
import io.netty.handler.codec.http.HttpHeaders;
import io.spillway.edge.http.filter.EncoderFilterCallbacks;
import io.spillway.edge.http.filter.ResponseFlag;
import io.spillway.edge.http.filter.StreamCallbacksStub;
import io.spillway.edge.http.filter.StreamInfo;
import io.spillway.edge.http.message.RequestHeaders;
import io.spillway.edge.http.message.ResponseHeaders;
import io.spillway.edge.router.RouteEntry;
import io.spillway.edge.upstream.Worker;
import java.nio.charset.StandardCharsets;
import java.util.SplittableRandom;
import java.util.function.Consumer;

/** Both sides of one stream as the Lua filter sees them: records the reply, what it injects and route re-matches. */
final class LuaFakeStream extends StreamCallbacksStub implements EncoderFilterCallbacks {
  final Worker worker = new Worker(0, null, new SplittableRandom(1), null, UnpooledByteBufAllocator.DEFAULT, null);
  final StreamInfo info = new StreamInfo(0, "127.0.0.1", false);
  RouteEntry route;
  RequestHeaders request;
  long bufferLimit = 1 << 20;
  ResponseHeaders reply;
  String replyBody;
  int textReplyStatus;
  ByteBuf injectedRequest;
  ByteBuf injectedResponse;
  int routeRematches;

  LuaFakeStream(RouteEntry route) {
    this.route = route;
  }

  @Override
  public Worker worker() {
    return worker;
  }

  @Override
  public RouteEntry route() {
    return route;
  }

  @Override
  public RequestHeaders requestHeaders() {
    return request;
  }

  @Override
  public StreamInfo streamInfo() {
    return info;
  }

  @Override
  public long decoderBufferLimit() {
    return bufferLimit;
  }

  @Override
  public void clearRouteCache() {
    routeRematches++;
  }

  @Override
  public void sendLocalReply(int status, String body, ResponseFlag flag, Consumer<HttpHeaders> modifyHeaders) {
    textReplyStatus = status;
  }

  @Override
  public void sendLocalReply(ResponseHeaders headers, ByteBuf body, ResponseFlag flag) {
    reply = headers;
    replyBody = body == null ? null : body.toString(StandardCharsets.UTF_8);
    if (body != null) {
      body.release();
    }
  }

  @Override
  public void injectDecodedData(ByteBuf data) {
    injectedRequest = data;
  }

  @Override
  public void injectEncodedData(ByteBuf data) {
    injectedResponse = data;
  }

  @Override
  public void continueEncoding() {
    throw new UnsupportedOperationException("the Lua filter resumes by injecting the body");
  }

  static String text(ByteBuf b) {
    String s = b.toString(StandardCharsets.UTF_8);
    b.release();
    return s;
  }
}
