package io.spillway.edge.filters.headertometadata;

import io.netty.buffer.ByteBuf;
import io.spillway.edge.http.filter.EncoderFilterCallbacks;
import io.spillway.edge.http.filter.RecordingStream;
import io.spillway.edge.http.filter.StreamInfo;
import io.spillway.edge.http.message.RequestHeaders;
import io.spillway.edge.router.RouteEntry;

/**
 * Both sides of one stream as the header-to-metadata filter sees them: a route, the request, the
 * stream info ({@link RecordingStream}); the filter never stops or rewrites a response.
 */
final class FakeStream extends RecordingStream implements EncoderFilterCallbacks {

  FakeStream(RouteEntry route, RequestHeaders request) {
    super(route, request, new StreamInfo(0, "127.0.0.1", false));
  }

  @Override
  public void sendLocalReply(int status, String body, io.spillway.edge.http.filter.ResponseFlag flag,
      java.util.function.Consumer<io.netty.handler.codec.http.HttpHeaders> modifyHeaders) {
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
