package io.spillway.edge.filters.policylimit;

import io.netty.handler.codec.http.HttpHeaders;
import io.spillway.edge.http.filter.RecordingStream;
import io.spillway.edge.http.filter.ResponseFlag;
import io.spillway.edge.http.filter.StreamInfo;
import io.spillway.edge.http.message.RequestHeaders;
import io.spillway.edge.http.message.ResponseHeaders;
import io.spillway.edge.router.RouteEntry;
import io.spillway.edge.upstream.Worker;
import java.util.function.Consumer;

/**
 * A {@link RecordingStream} for the limiter's tests: the local reply also as response headers, a
 * worker when the test gives one (fleet-wide limits resume on its loop), and every resumption counted.
 */
class LimitStream extends RecordingStream {
  private final Worker worker;
  ResponseHeaders reply;
  int continued;

  /** A stream whose worker is {@code worker} (null: the test needs none). */
  LimitStream(RequestHeaders request, String peer, RouteEntry route, Worker worker) {
    super(route, request, new StreamInfo(0, peer, false));
    this.worker = worker;
  }

  LimitStream(RequestHeaders request, String peer, RouteEntry route) {
    this(request, peer, route, null);
  }

  @Override
  public Worker worker() {
    return worker != null ? worker : super.worker();
  }

  @Override
  public void continueDecoding() {
    continued++;
  }

  @Override
  public void sendLocalReply(int status, String body, ResponseFlag flag, Consumer<HttpHeaders> modifyHeaders) {
    super.sendLocalReply(status, body, flag, modifyHeaders);
    reply = new ResponseHeaders(status, replyHeaders);
  }
}
