package io.spillway.edge.filters.jwtauthn;

import io.netty.handler.codec.http.HttpHeaders;
import io.spillway.edge.http.filter.RecordingStream;
import io.spillway.edge.http.filter.ResponseFlag;
import io.spillway.edge.http.filter.StreamInfo;
import io.spillway.edge.http.message.RequestHeaders;
import io.spillway.edge.router.RouteEntry;
import io.spillway.edge.upstream.Worker;
import java.util.function.Consumer;

/** The decoder side of one stream as the jwt_authn filter sees it, recording the local reply. */
final class FakeCallbacks extends RecordingStream {
  /** The stream's worker when the test gives one (a remote fetch's wait needs its loop). */
  private final Worker worker;
  int continued;

  FakeCallbacks(RouteEntry route, RequestHeaders request, long nowEpochSeconds) {
    this(route, request, nowEpochSeconds, null);
  }

  FakeCallbacks(RouteEntry route, RequestHeaders request, long nowEpochSeconds, Worker worker) {
    super(route, request, new StreamInfo(0, nowEpochSeconds * 1_000_000_000L, "127.0.0.1", false));
    this.worker = worker;
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
    info.setResponseCodeDetails(body);
    super.sendLocalReply(status, body, flag, modifyHeaders);
  }
}
