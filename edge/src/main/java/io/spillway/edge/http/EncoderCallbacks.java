package io.spillway.edge.http;

import io.netty.buffer.ByteBuf;
import io.netty.handler.codec.http.HttpHeaders;
import io.spillway.edge.http.filter.EncoderFilterCallbacks;
import io.spillway.edge.http.filter.ResponseFlag;
import io.spillway.edge.http.filter.StreamInfo;
import io.spillway.edge.http.message.RequestHeaders;
import io.spillway.edge.http.message.ResponseHeaders;
import io.spillway.edge.router.RouteEntry;
import io.spillway.edge.upstream.ConnectionShare;
import io.spillway.edge.upstream.Worker;
import java.util.function.Consumer;

/**
 * The stream as its encoder filters see it: the same stream callbacks as the decoder side, plus
 * continuing the response's iteration. One per stream that has encoder filters.
 */
final class EncoderCallbacks implements EncoderFilterCallbacks {
  private final HttpStream stream;

  EncoderCallbacks(HttpStream stream) {
    this.stream = stream;
  }

  @Override
  public void continueEncoding() {
    stream.continueEncoding();
  }

  @Override
  public void injectEncodedData(ByteBuf data) {
    stream.injectEncodedData(data);
  }

  @Override
  public Worker worker() {
    return stream.worker();
  }

  @Override
  public ConnectionShare connectionShare() {
    return stream.connectionShare();
  }

  @Override
  public RouteEntry route() {
    return stream.route();
  }

  @Override
  public RequestHeaders requestHeaders() {
    return stream.requestHeaders();
  }

  @Override
  public StreamInfo streamInfo() {
    return stream.streamInfo();
  }

  @Override
  public void sendLocalReply(int status, String body, ResponseFlag flag, Consumer<HttpHeaders> modifyHeaders) {
    stream.sendLocalReply(status, body, flag, modifyHeaders);
  }

  @Override
  public void sendLocalReply(ResponseHeaders headers, ByteBuf body, ResponseFlag flag) {
    stream.sendLocalReply(headers, body, flag);
  }

  @Override
  public void sendResponse(ResponseHeaders headers, ByteBuf body, ResponseFlag flag) {
    stream.sendResponse(headers, body, flag);
  }

  @Override
  public void resetStream(ResponseFlag flag) {
    stream.resetStream(flag);
  }

  @Override
  public io.spillway.edge.http.filter.ActiveSpan activeSpan() {
    return stream.activeSpan();
  }

  @Override
  public boolean responseStarted() {
    return stream.responseStarted();
  }
}
