package io.spillway.edge.http.filter;

import io.netty.buffer.ByteBuf;
import io.netty.handler.codec.http.DefaultHttpHeaders;
import io.netty.handler.codec.http.HttpHeaders;
import io.spillway.edge.http.message.RequestHeaders;
import io.spillway.edge.http.message.ResponseHeaders;
import io.spillway.edge.router.RouteEntry;
import io.spillway.edge.upstream.Worker;
import java.util.function.Consumer;

/**
 * The decoder side of one stream for a filter that decides inline from the request headers: its
 * route, request and stream info, and the text local reply it sends, recorded. Everything else a
 * filter could ask for fails the test, as in {@link StreamCallbacksStub}.
 */
public class RecordingStream extends StreamCallbacksStub {
  public final RouteEntry route;
  public final RequestHeaders request;
  public final StreamInfo info;
  public int replyStatus;
  public String replyBody;
  public ResponseFlag replyFlag;
  public final HttpHeaders replyHeaders = new DefaultHttpHeaders();
  public int replies;

  public RecordingStream(RouteEntry route, RequestHeaders request, StreamInfo info) {
    this.route = route;
    this.request = request;
    this.info = info;
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
    replyStatus = status;
    replyBody = body;
    replyFlag = flag;
    if (modifyHeaders != null) {
      modifyHeaders.accept(replyHeaders);
    }
    replies++;
  }

  @Override
  public void sendLocalReply(ResponseHeaders headers, ByteBuf body, ResponseFlag flag) {
    throw new UnsupportedOperationException("the filter answers with text replies");
  }
}
