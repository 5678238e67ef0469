package io.spillway.edge.http.filter;

import io.netty.buffer.ByteBuf;
import io.netty.handler.codec.http.HttpHeaders;
import io.spillway.edge.http.message.ResponseHeaders;
import io.spillway.edge.upstream.ConnectionShare;

/**
 * The stream plumbing a filter's test fake does not care about: response writing, flow control,
 * deadlines and buffer limits do nothing, and what a filter must not call here (resets, resuming,
 * injecting data) fails the test. Fakes extend it and implement what they record.
 */
public abstract class StreamCallbacksStub implements DecoderFilterCallbacks {

  @Override
  public ConnectionShare connectionShare() {
    return null;
  }

  @Override
  public void resetStream(ResponseFlag flag) {
    throw new UnsupportedOperationException("reset " + flag);
  }

  @Override
  public boolean responseStarted() {
    return false;
  }

  @Override
  public void continueDecoding() {
    throw new UnsupportedOperationException("this filter never stops the request");
  }

  @Override
  public void injectDecodedData(ByteBuf data) {
    throw new UnsupportedOperationException("this filter never rewrites the request body");
  }

  @Override
  public long decoderBufferLimit() {
    return 0;
  }

  @Override
  public void setDecoderBufferLimit(long bytes) {}

  @Override
  public void encodeHeaders(ResponseHeaders headers, boolean endStream) {}

  @Override
  public void encodeData(ByteBuf data, boolean endStream) {}

  @Override
  public void encodeTrailers(HttpHeaders trailers) {}

  @Override
  public void flushResponse() {}

  @Override
  public void readDisable(boolean disable) {}

  @Override
  public boolean downstreamWritable() {
    return true;
  }

  @Override
  public void setDownstreamWatermarkCallbacks(DownstreamWatermarkCallbacks callbacks) {}

  @Override
  public void setResponseDeadline(long deadlineNanos, Runnable onExpiry) {}

  @Override
  public void setMaxStreamDuration(long nanos) {}

  @Override
  public void touch() {}

  @Override
  public void clearRouteCache() {
    throw new UnsupportedOperationException("this filter never changes the route");
  }
}
