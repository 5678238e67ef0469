package io.spillway.edge.filters.policylimit;

import io.netty.handler.codec.http.DefaultHttpHeadersFactory;
import io.netty.handler.codec.http.HttpHeaders;
import io.spillway.edge.http.filter.ResponseFlag;
import io.spillway.edge.http.filter.StreamCallbacksStub;
import io.spillway.edge.http.filter.StreamInfo;
import io.spillway.edge.http.message.RequestHeaders;
import io.spillway.edge.http.message.ResponseHeaders;
import io.spillway.edge.router.RouteEntry;
import io.spillway.edge.upstream.Worker;
import java.util.function.Consumer;

/** One stream's decoder callbacks for the limiter's tests, recording the local reply and every resumption. */
class LimitStream extends StreamCallbacksStub {
  final RequestHeaders request;
  final StreamInfo info;
  final RouteEntry route;
  private final Worker worker;
  ResponseHeaders reply;
  String replyBody;
  ResponseFlag replyFlag;
  int continued;

  /** A stream whose worker is {@code worker} (null: the test needs none). */
  LimitStream(RequestHeaders request, String peer, RouteEntry route, Worker worker) {
    this.request = request;
    this.info = new StreamInfo(0, peer, false);
    this.route = route;
    this.worker = worker;
  }

  LimitStream(RequestHeaders request, String peer, RouteEntry route) {
    this(request, peer, route, null);
  }

  @Override
  public Worker worker() {
    if (worker == null) {
      throw new UnsupportedOperationException("the limiter needs no worker here");
    }
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
  public void continueDecoding() {
    continued++;
  }

  @Override
  public void sendLocalReply(int status, String body, ResponseFlag flag, Consumer<HttpHeaders> modifyHeaders) {
    HttpHeaders h = DefaultHttpHeadersFactory.headersFactory().newHeaders();
    modifyHeaders.accept(h);
    reply = new ResponseHeaders(status, h);
    replyBody = body;
    replyFlag = flag;
  }

  @Override
  public void sendLocalReply(ResponseHeaders headers, io.netty.buffer.ByteBuf body, ResponseFlag flag) {
    throw new UnsupportedOperationException();
  }
}
