package io.spillway.edge.upstream;

import io.netty.buffer.ByteBuf;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelPromise;
import io.netty.channel.VoidChannelPromise;
import io.netty.handler.codec.http2.Http2Connection;
import io.netty.handler.codec.http2.Http2ConnectionAdapter;
import io.netty.handler.codec.http2.Http2ConnectionEncoder;
import io.netty.handler.codec.http2.Http2Error;
import io.netty.handler.codec.http2.Http2Exception;
import io.netty.handler.codec.http2.Http2FrameAdapter;
import io.netty.handler.codec.http2.Http2Headers;
import io.netty.handler.codec.http2.Http2RemoteFlowController;
import io.netty.handler.codec.http2.Http2Stream;
import io.spillway.edge.http2.EdgeHttp2ConnectionHandler;
import java.util.ArrayList;

/**
 * The streams of one upstream HTTP/2 connection: the codec's frame listener, which gives each
 * stream's frames to its {@link Http2ClientStream} (a property of Netty's stream), and the streams'
 * way to the codec — starting a stream, writes through the encoder, resets, flow-control credit,
 * and one flush per event-loop turn. It also counts the streams handed out and not started yet,
 * which the pool counts against the server's stream limit. Event loop only.
 */
final class Http2ClientConnection extends Http2FrameAdapter implements Http2RemoteFlowController.Listener {
  private final Host host;
  private final Cluster cluster;
  /** Told when a stream handed out ends without starting (its room is free again) and on GOAWAY. */
  private final Runnable onRoomChanged;
  private EdgeHttp2ConnectionHandler codec;
  private Http2Connection connection;
  private Http2RemoteFlowController remoteFlow;
  private ChannelHandlerContext ctx;
  private ChannelPromise quietPromise;
  private Http2Connection.PropertyKey streamKey;
  private final ArrayList<Http2ClientStream> readThisTurn = new ArrayList<>();
  private int reserved;
  private boolean goAwayReceived;
  private boolean flushPending;
  private final Runnable flushTask = this::flushNow;

  Http2ClientConnection(Host host, Cluster cluster, Runnable onRoomChanged) {
    this.host = host;
    this.cluster = cluster;
    this.onRoomChanged = onRoomChanged;
  }

  /** Connects to the codec once it is in the pipeline ({@code ctx} is the codec's context). */
  void attach(EdgeHttp2ConnectionHandler codec, ChannelHandlerContext ctx) {
    this.codec = codec;
    this.ctx = ctx;
    this.quietPromise = new VoidChannelPromise(ctx.channel(), false);
    this.connection = codec.connection();
    this.remoteFlow = connection.remote().flowController();
    this.streamKey = connection.newKey();
    remoteFlow.listener(this);
    connection.addListener(new Http2ConnectionAdapter() {
      @Override
      public void onStreamClosed(Http2Stream stream) {
        Http2ClientStream s = stream.getProperty(streamKey);
        if (s != null) {
          s.onClosed();
        }
      }
    });
  }

  Http2Connection connection() {
    return connection;
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
    if (!connection.local().canOpenStream() || goAwayReceived || !ctx.channel().isActive()) {
      onRoomChanged.run();
      return null;
    }
    int id = connection.local().incrementAndGetNextStreamId();
    if (id < 0) {
      onRoomChanged.run();
      return null;
    }
    codec.encoder().writeHeaders(ctx, id, headers, 0, endStream, quietPromise);
    Http2Stream stream = connection.stream(id);
    if (stream == null) {
      onRoomChanged.run();
      return null;
    }
    stream.setProperty(streamKey, s);
    flushSoon();
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
    Http2ClientStream s = streamOf(streamId);
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
    Http2ClientStream s = streamOf(streamId);
    if (s == null) {
      return data.readableBytes() + padding;
    }
    noteRead(s);
    return s.onData(data, padding, endOfStream);
  }

  @Override
  public void onRstStreamRead(ChannelHandlerContext ctx, int streamId, long errorCode) {
    Http2ClientStream s = streamOf(streamId);
    if (s != null) {
      s.onPeerReset(errorCode);
    }
  }

  @Override
  public void onGoAwayRead(ChannelHandlerContext ctx, int lastStreamId, long errorCode, ByteBuf debugData) {
    goAwayReceived = true;
    onRoomChanged.run();
  }

  @Override
  public void writabilityChanged(Http2Stream stream) {
    Http2ClientStream s = stream.getProperty(streamKey);
    if (s != null) {
      s.onWritabilityChanged(remoteFlow.isWritable(stream));
    }
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

  private Http2ClientStream streamOf(int streamId) {
    Http2Stream stream = connection.stream(streamId);
    return stream == null ? null : stream.getProperty(streamKey);
  }

  // --- the streams' way to the codec ---------------------------------------------------------

  Http2ConnectionEncoder encoder() {
    return codec.encoder();
  }

  ChannelHandlerContext ctx() {
    return ctx;
  }

  /** A promise for writes nobody waits for; a failure is not raised as the connection's exception. */
  ChannelPromise quietPromise() {
    return quietPromise;
  }

  boolean isWritable(Http2Stream stream) {
    return stream == null ? ctx.channel().isWritable() : remoteFlow.isWritable(stream);
  }

  void flushSoon() {
    if (!flushPending) {
      flushPending = true;
      ctx.executor().execute(flushTask);
    }
  }

  private void flushNow() {
    flushPending = false;
    codec.flush(ctx);
  }

  void consume(Http2Stream stream, int bytes) {
    try {
      if (connection.local().flowController().consumeBytes(stream, bytes)) {
        flushSoon();
      }
    } catch (Http2Exception e) {
      codec.onError(ctx, true, e);
    }
  }

  void reset(Http2Stream stream, Http2Error error) {
    codec.resetStream(ctx, stream.id(), error.code(), ctx.newPromise());
    flushSoon();
  }
}
