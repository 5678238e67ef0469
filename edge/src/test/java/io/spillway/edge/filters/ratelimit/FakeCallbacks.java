package io.spillway.edge.filters.ratelimit;

import io.netty.buffer.ByteBuf;
import io.netty.handler.codec.http.DefaultHttpHeadersFactory;
import io.netty.handler.codec.http.HttpHeaders;
import io.spillway.edge.http.filter.StreamCallbacksStub;
import io.spillway.edge.http.filter.ResponseFlag;
import io.spillway.edge.http.filter.StreamInfo;
import io.spillway.edge.http.message.RequestHeaders;
import io.spillway.edge.http.message.ResponseHeaders;
import io.spillway.edge.router.RouteEntry;
import io.spillway.edge.upstream.ConnectionShare;
import io.spillway.edge.upstream.Worker;
import java.util.SplittableRandom;
import java.util.function.Consumer;

/** The decoder side of one stream as a filter sees it, recording the local reply it is asked for. */
class FakeCallbacks extends StreamCallbacksStub {
  final Worker worker;
  final ConnectionShare connection;
  final RouteEntry route;
  final RequestHeaders request;
  final StreamInfo info;
  ResponseHeaders localReply;
  String localReplyBody;
  ResponseFlag localReplyFlag;

  /** @param worker the stream's worker: its random source draws the enabled / enforced fractions */
  FakeCallbacks(Worker worker, ConnectionShare connection, RouteEntry route, RequestHeaders request,
      String clientAddress) {
    this.worker = worker;
    this.connection = connection;
    this.route = route;
    this.request = request;
    this.info = new StreamInfo(0, clientAddress, false);
  }

  /** A worker with only a seeded random source (no loop: the filter never schedules). */
  static Worker worker(long seed) {
    return new Worker(0, null, new SplittableRandom(seed), null, null, null);
  }

  static HttpHeaders headers() {
    return DefaultHttpHeadersFactory.headersFactory().newHeaders();
  }

  @Override
  public Worker worker() {
    return worker;
  }

  @Override
  public ConnectionShare connectionShare() {
    return connection;
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
    HttpHeaders h = headers();
    if (modifyHeaders != null) {
      modifyHeaders.accept(h);
    }
    localReply = new ResponseHeaders(status, h);
    localReplyBody = body;
    localReplyFlag = flag;
    info.setResponseFlag(flag);
  }

  @Override
  public void sendLocalReply(ResponseHeaders headers, ByteBuf body, ResponseFlag flag) {
    throw new UnsupportedOperationException();
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
    throw new UnsupportedOperationException("the filter does not rewrite bodies");
  }

}
