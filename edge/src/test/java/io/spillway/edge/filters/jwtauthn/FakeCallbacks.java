package io.spillway.edge.filters.jwtauthn;

import io.netty.buffer.ByteBuf;
import io.netty.handler.codec.http.DefaultHttpHeaders;
import io.netty.handler.codec.http.HttpHeaders;
import io.spillway.edge.http.filter.ResponseFlag;
import io.spillway.edge.http.filter.StreamCallbacksStub;
import io.spillway.edge.http.filter.StreamInfo;
import io.spillway.edge.http.message.RequestHeaders;
import io.spillway.edge.http.message.ResponseHeaders;
import io.spillway.edge.router.RouteEntry;
import io.spillway.edge.upstream.Worker;
import java.util.function.Consumer;

/** The decoder side of one stream as the jwt_authn filter sees it, recording the local reply. */
final class FakeCallbacks extends StreamCallbacksStub {
  final RouteEntry route;
  final RequestHeaders request;
  final StreamInfo info;
  int replyStatus;
  String replyBody;
  final HttpHeaders replyHeaders = new DefaultHttpHeaders();
  int replies;

  FakeCallbacks(RouteEntry route, RequestHeaders request, long nowEpochSeconds) {
    this.route = route;
    this.request = request;
    this.info = new StreamInfo(0, nowEpochSeconds * 1_000_000_000L, "127.0.0.1", false);
  }

  @Override
  public Worker worker() {
    throw new UnsupportedOperationException("the filter needs no worker");
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
    info.setResponseCodeDetails(body);
    replyStatus = status;
    replyBody = body;
    if (modifyHeaders != null) {
      modifyHeaders.accept(replyHeaders);
    }
    replies++;
  }

  @Override
  public void sendLocalReply(ResponseHeaders headers, ByteBuf body, ResponseFlag flag) {
    throw new UnsupportedOperationException("the filter answers with text replies");
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
  public void injectDecodedData(ByteBuf data) {
    throw new UnsupportedOperationException();
  }
}
