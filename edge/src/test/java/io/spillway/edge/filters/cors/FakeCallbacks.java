package io.spillway.edge.filters.cors;

import io.netty.buffer.ByteBuf;
import io.netty.handler.codec.http.HttpHeaders;
import io.spillway.edge.http.filter.StreamCallbacksStub;
import io.spillway.edge.http.filter.ResponseFlag;
import io.spillway.edge.http.filter.StreamInfo;
import io.spillway.edge.http.message.RequestHeaders;
import io.spillway.edge.http.message.ResponseHeaders;
import io.spillway.edge.router.RouteEntry;
import io.spillway.edge.upstream.ConnectionShare;
import io.spillway.edge.upstream.Worker;
import java.util.function.Consumer;

/** The decoder side of one stream as the CORS filter sees it, recording the reply it sends. */
final class FakeCallbacks extends StreamCallbacksStub {
  final Worker worker;
  final RouteEntry route;
  final RequestHeaders request;
  final StreamInfo info = new StreamInfo(0, "127.0.0.1", false);
  ResponseHeaders reply;
  ResponseFlag replyFlag;
  int replies;

  FakeCallbacks(Worker worker, RouteEntry route, RequestHeaders request) {
    this.worker = worker;
    this.route = route;
    this.request = request;
  }

  @Override
  public Worker worker() {
    return worker;
  }

  @Override
  public ConnectionShare connectionShare() {
    throw new UnsupportedOperationException();
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
  public void sendLocalReply(int status, String body, ResponseFlag flag, Consumer<HttpHeaders> modifyHeaders) {
    throw new UnsupportedOperationException("the CORS filter builds its reply's headers itself");
  }

  @Override
  public void sendLocalReply(ResponseHeaders headers, ByteBuf body, ResponseFlag flag) {
    if (body != null) {
      throw new AssertionError("a preflight reply has no body");
    }
    reply = headers;
    replyFlag = flag;
    replies++;
  }

  @Override
  public void resetStream(ResponseFlag flag) {
    throw new UnsupportedOperationException();
  }

  @Override
  public void continueDecoding() {
    throw new UnsupportedOperationException("the filter decides inline");
  }

  @Override
  public void injectDecodedData(io.netty.buffer.ByteBuf data) {
    throw new UnsupportedOperationException("the CORS filter never rewrites a body");
  }
}
