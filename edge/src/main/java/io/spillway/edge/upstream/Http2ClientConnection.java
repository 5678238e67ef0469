package io.spillway.edge.upstream;

import io.netty.buffer.ByteBuf;
import io.netty.channel.ChannelHandlerContext;
import io.netty.handler.codec.http2.Http2Connection;
import io.netty.handler.codec.http2.Http2FrameAdapter;
import io.netty.handler.codec.http2.Http2Headers;
import io.netty.handler.codec.http2.Http2Stream;
import io.spillway.edge.http2.EdgeHttp2ConnectionHandler;
import io.spillway.edge.http2.Http2Streams;
import java.util.ArrayList;

/**
 * The streams of one upstream HTTP/2 connection: the codec's frame listener, which gives each
 * stream's frames to its {@link Http2ClientStream} (kept by {@link Http2Streams}, the streams' way
 * to the codec), starts streams, and counts the streams handed out and not started yet, which the
 * pool counts against the server's stream limit. Event loop only.
 */
final class Http2ClientConnection extends Http2FrameAdapter {
  private final Host host;
  private final Cluster cluster;
  /** Told when a stream handed out ends without starting (its room is free again) and on GOAWAY. */
  private final Runnable onRoomChanged;
  private Http2Streams<Http2ClientStream> streams;
  private final ArrayList<Http2ClientStream> readThisTurn = new ArrayList<>();
  private int reserved;
  private boolean goAwayReceived;

  Http2ClientConnection(Host host, Cluster cluster, Runnable onRoomChanged) {
    this.host = host;
    this.cluster = cluster;
    this.onRoomChanged = onRoomChanged;
  }

  /** Connects to the codec once it is in the pipeline ({@code ctx} is the codec's context). */
  void attach(EdgeHttp2ConnectionHandler codec, ChannelHandlerContext ctx) {
    streams = new Http2Streams<>(codec, ctx, Http2ClientStream::onWritabilityChanged, Http2ClientStream::onClosed);
  }

  /** The streams' way to the codec. */
  Http2Streams<Http2ClientStream> streams() {
    return streams;
  }

  /** A stream for the next request, counted as reserved until it starts or is reset. */
  Http2ClientStream newStream() {
    reserved++;
    return new Http2ClientStream(this, host, cluster);
  }

  /** Streams handed out and not started yet. */
  int reserved() {
    return reserved;
  }

  boolean goAwayReceived() {
    return goAwayReceived;
  }

  /** Opens the stream with the request head; {@code null} when the connection can take no new stream. */
  Http2Stream start(Http2ClientStream s, Http2Headers headers, boolean endStream) {
    reserved--;
    Http2Connection connection = streams.connection();
    int id = connection.local().canOpenStream() && !goAwayReceived && streams.ctx().channel().isActive()
        ? connection.local().incrementAndGetNextStreamId() : -1;
    Http2Stream stream = id < 0 ? null : streams.open(id, headers, endStream);
    if (stream == null) {
      onRoomChanged.run();
      return null;
    }
    streams.put(stream, s);
    return stream;
  }

  /** A stream handed out was reset or closed before it started. */
  void released(Http2ClientStream s) {
    if (s.takeReservation()) {
      reserved--;
      onRoomChanged.run();
    }
  }

  // --- frames from the codec -----------------------------------------------------------------

  @Override
  public void onHeadersRead(ChannelHandlerContext ctx, int streamId, Http2Headers headers, int padding,
      boolean endStream) {
    Http2ClientStream s = streams.get(streamId);
    if (s != null) {
      noteRead(s);
      s.onHeaders(headers, endStream);
    }
  }

  @Override
  public void onHeadersRead(ChannelHandlerContext ctx, int streamId, Http2Headers headers, int streamDependency,
      short weight, boolean exclusive, int padding, boolean endStream) {
    onHeadersRead(ctx, streamId, headers, padding, endStream);
  }

  @Override
  public int onDataRead(ChannelHandlerContext ctx, int streamId, ByteBuf data, int padding, boolean endOfStream) {
    Http2ClientStream s = streams.get(streamId);
    if (s == null) {
      return data.readableBytes() + padding;
    }
    noteRead(s);
    return s.onData(data, padding, endOfStream);
  }

  @Override
  public void onRstStreamRead(ChannelHandlerContext ctx, int streamId, long errorCode) {
    Http2ClientStream s = streams.get(streamId);
    if (s != null) {
      s.onPeerReset(errorCode);
    }
  }

  @Override
  public void onGoAwayRead(ChannelHandlerContext ctx, int lastStreamId, long errorCode, ByteBuf debugData) {
    goAwayReceived = true;
    onRoomChanged.run();
  }

  /** The connection's read finished: streams that got frames in it are told (they flush downstream). */
  void onReadComplete() {
    for (int i = 0; i < readThisTurn.size(); i++) {
      readThisTurn.get(i).onReadComplete();
    }
    readThisTurn.clear();
  }

  private void noteRead(Http2ClientStream s) {
    if (!s.readThisTurn) {
      s.readThisTurn = true;
      readThisTurn.add(s);
    }
  }
}
