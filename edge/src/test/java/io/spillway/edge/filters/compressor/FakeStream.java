package io.spillway.edge.filters.compressor;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufAllocator;
import io.netty.handler.codec.http.HttpHeaders;
import io.spillway.edge.http.filter.StreamCallbacksStub;
import io.spillway.edge.http.filter.EncoderFilterCallbacks;
import io.spillway.edge.http.filter.ResponseFlag;
import io.spillway.edge.http.filter.StreamInfo;
import io.spillway.edge.http.message.RequestHeaders;
import io.spillway.edge.http.message.ResponseHeaders;
import io.spillway.edge.router.RouteEntry;
import io.spillway.edge.upstream.Worker;
import java.util.ArrayList;
import java.util.List;
import java.util.SplittableRandom;
import java.util.function.Consumer;

/** Both sides of one stream as a filter sees them; records what the filter injects. */
final class FakeStream extends StreamCallbacksStub implements EncoderFilterCallbacks {
  final Worker worker;
  final RouteEntry route;
  final RequestHeaders request;
  final StreamInfo info = new StreamInfo(0, "127.0.0.1", false);
  final List<ByteBuf> injected = new ArrayList<>();
  final List<ByteBuf> injectedRequest = new ArrayList<>();

  FakeStream(ByteBufAllocator allocator, RouteEntry route, RequestHeaders request) {
    this.worker = new Worker(0, null, new SplittableRandom(1), null, allocator, null);
    this.route = route;
    this.request = request;
  }

  @Override
  public void injectEncodedData(ByteBuf data) {
    injected.add(data);
  }

  @Override
  public void injectDecodedData(ByteBuf data) {
    injectedRequest.add(data);
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
  public void sendLocalReply(int status, String body, ResponseFlag flag, Consumer<HttpHeaders> modifyHeaders) {
    throw new UnsupportedOperationException();
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
  public void continueEncoding() {
    throw new UnsupportedOperationException("the compressor never stops");
  }

  @Override
  public void continueDecoding() {
    throw new UnsupportedOperationException("the compressor never stops");
  }

}
