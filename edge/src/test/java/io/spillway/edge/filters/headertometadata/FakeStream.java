package io.spillway.edge.filters.headertometadata;

import io.netty.buffer.ByteBuf;
import io.netty.handler.codec.http.HttpHeaders;
import io.spillway.edge.http.filter.EncoderFilterCallbacks;
import io.spillway.edge.http.filter.ResponseFlag;
import io.spillway.edge.http.filter.StreamCallbacksStub;
import io.spillway.edge.http.filter.StreamInfo;
import io.spillway.edge.http.message.RequestHeaders;
import io.spillway.edge.http.message.ResponseHeaders;
import io.spillway.edge.router.RouteEntry;
import io.spillway.edge.upstream.Worker;
import java.util.function.Consumer;

/** Both sides of one stream as the header-to-metadata filter sees them: a route, the request, the stream info. */
final class FakeStream extends StreamCallbacksStub implements EncoderFilterCallbacks {
  final StreamInfo info = new StreamInfo(0, "127.0.0.1", false);
  private final RouteEntry route;
  private final RequestHeaders request;

  FakeStream(RouteEntry route, RequestHeaders request) {
    this.route = route;
    this.request = request;
  }

  @Override
  public Worker worker() {
    throw new UnsupportedOperationException("the filter draws nothing at random");
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
    throw new UnsupportedOperationException("the filter never answers");
  }

  @Override
  public void sendLocalReply(ResponseHeaders headers, ByteBuf body, ResponseFlag flag) {
    throw new UnsupportedOperationException("the filter never answers");
  }

  @Override
  public void continueEncoding() {
    throw new UnsupportedOperationException("the filter never stops the response");
  }

  @Override
  public void injectEncodedData(ByteBuf data) {
    throw new UnsupportedOperationException("the filter never rewrites a body");
  }
}
