package io.spillway.edge.filters.extauthz;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.UnpooledByteBufAllocator;
import io.netty.handler.codec.http.DefaultHttpHeaders;
import io.netty.handler.codec.http.HttpHeaders;
import io.spillway.edge.http.filter.StreamCallbacksStub;
import io.spillway.edge.http.filter.ResponseFlag;
import io.spillway.edge.http.filter.StreamInfo;
import io.spillway.edge.http.message.RequestHeaders;
import io.spillway.edge.http.message.ResponseHeaders;
import io.spillway.edge.router.RouteEntry;
import io.spillway.edge.upstream.Worker;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.util.SplittableRandom;
import java.util.function.Consumer;

/** The decoder side of one stream as the ext_authz filter sees it: records resumes, limits and local replies. */
final class FakeStream extends StreamCallbacksStub {
  final Worker worker = new Worker(0, null, new SplittableRandom(7), null, UnpooledByteBufAllocator.DEFAULT, null);
  final RequestHeaders request;
  final StreamInfo info = new StreamInfo(0, 1_700_000_000_123_000_000L, "10.0.0.7:5555", false);
  int continued;
  long bufferLimit = 1 << 20;
  ResponseHeaders localReply;
  String localReplyBody;
  ResponseFlag localReplyFlag;

  FakeStream(RequestHeaders request) {
    this.request = request;
    info.setDownstreamAddresses(new InetSocketAddress("10.0.0.7", 5555), new InetSocketAddress("10.0.0.1", 8080));
  }

  @Override
  public Worker worker() {
    return worker;
  }

  @Override
  public RouteEntry route() {
    return null;
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
    localReply = new ResponseHeaders(status, new DefaultHttpHeaders());
    localReplyBody = body;
    localReplyFlag = flag;
  }

  @Override
  public void sendLocalReply(ResponseHeaders headers, ByteBuf body, ResponseFlag flag) {
    localReply = headers;
    localReplyBody = body == null ? null : body.toString(StandardCharsets.UTF_8);
    localReplyFlag = flag;
    if (body != null) {
      body.release();
    }
  }

  @Override
  public void resetStream(ResponseFlag flag) {
    throw new UnsupportedOperationException();
  }

  @Override
  public void continueDecoding() {
    continued++;
  }

  @Override
  public void injectDecodedData(ByteBuf data) {
    throw new UnsupportedOperationException();
  }

  @Override
  public long decoderBufferLimit() {
    return bufferLimit;
  }

  @Override
  public void setDecoderBufferLimit(long bytes) {
    bufferLimit = bytes;
  }

}
