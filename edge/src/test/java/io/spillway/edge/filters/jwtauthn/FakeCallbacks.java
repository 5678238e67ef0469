package io.spillway.edge.filters.jwtauthn;

import io.netty.handler.codec.http.HttpHeaders;
import io.spillway.edge.http.filter.RecordingStream;
import io.spillway.edge.http.filter.ResponseFlag;
import io.spillway.edge.http.filter.StreamInfo;
import io.spillway.edge.http.message.RequestHeaders;
import io.spillway.edge.router.RouteEntry;
import java.util.function.Consumer;

/** The decoder side of one stream as the jwt_authn filter sees it, recording the local reply. */
final class FakeCallbacks extends RecordingStream {

  FakeCallbacks(RouteEntry route, RequestHeaders request, long nowEpochSeconds) {
    super(route, request, new StreamInfo(0, nowEpochSeconds * 1_000_000_000L, "127.0.0.1", false));
  }

  @Override
  public void sendLocalReply(int status, String body, ResponseFlag flag, Consumer<HttpHeaders> modifyHeaders) {
    info.setResponseCodeDetails(body);
    super.sendLocalReply(status, body, flag, modifyHeaders);
  }
}
