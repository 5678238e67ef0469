package io.spillway.edge.http;

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
import io.spillway.edge.upstream.ConnectionShare;
import io.spillway.edge.upstream.Worker;
import java.util.function.Consumer;

/**
 * The streams of one downstream HTTP/2 connection: the codec's frame listener, which gives each
 * stream's frames to its {@link Http2ServerStream} (kept as a property of Netty's stream), and the
 * streams' way back to the codec — writes through its encoder, resets, flow-control credit, and
 * one flush per event-loop turn for all streams that finished in it (responses arriving from
 * several upstream connections in one turn leave in one write). Event loop only.
 */
final class Http2ServerStreams extends Http2FrameAdapter implements Http2RemoteFlowController.Listener {
  private final HttpConnectionManager hcm;
  private final Worker worker;
  private final String remoteAddress;
  private final StreamDeadlines deadlines;
  private final ConnectionShare share = new ConnectionShare();
  private final boolean tracksResponseBytes;
  private EdgeHttp2ConnectionHandler codec;
  private Http2Connection connection;
  private Http2RemoteFlowController remoteFlow;
  private ChannelHandlerContext ctx;
  private ChannelPromise quietPromise;
  private Http2Connection.PropertyKey streamKey;
  private boolean flushPending;
  private final Runnable flushTask = this::flushNow;

  /**
   * @param tracksResponseBytes whether streams count their queued response bytes (for the
   *     overload manager's reset_high_memory_stream action)
   */
  Http2ServerStreams(HttpConnectionManager hcm, Worker worker, String remoteAddress, StreamDeadlines deadlines,
      boolean tracksResponseBytes) {
    this.hcm = hcm;
    this.worker = worker;
    this.remoteAddress = remoteAddress;
    this.deadlines = deadlines;
    this.tracksResponseBytes = tracksResponseBytes;
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
        Http2ServerStream s = stream.getProperty(streamKey);
        if (s != null) {
          s.onClosed();
        }
      }
    });
  }

  // --- frames from the codec -----------------------------------------------------------------

  @Override
  public void onHeadersRead(ChannelHandlerContext ctx, int streamId, Http2Headers headers, int padding,
      boolean endStream) {
    Http2Stream stream = connection.stream(streamId);
    if (stream == null) {
      return;
    }
    Http2ServerStream s = stream.getProperty(streamKey);
    if (s == null) {
      s = new Http2ServerStream(this, stream);
      stream.setProperty(streamKey, s);
    }
    s.onHeaders(headers, endStream);
  }

  @Override
  public void onHeadersRead(ChannelHandlerContext ctx, int streamId, Http2Headers headers, int streamDependency,
      short weight, boolean exclusive, int padding, boolean endStream) {
    onHeadersRead(ctx, streamId, headers, padding, endStream);
  }

  @Override
  public int onDataRead(ChannelHandlerContext ctx, int streamId, ByteBuf data, int padding, boolean endOfStream) {
    Http2Stream stream = connection.stream(streamId);
    Http2ServerStream s = stream == null ? null : stream.getProperty(streamKey);
    return s == null ? data.readableBytes() + padding : s.onData(data, padding, endOfStream);
  }

  @Override
  public void onRstStreamRead(ChannelHandlerContext ctx, int streamId, long errorCode) {
    Http2Stream stream = connection.stream(streamId);
    Http2ServerStream s = stream == null ? null : stream.getProperty(streamKey);
    if (s != null) {
      s.onPeerReset();
    }
  }

  @Override
  public void writabilityChanged(Http2Stream stream) {
    Http2ServerStream s = stream.getProperty(streamKey);
    if (s != null) {
      s.onWritabilityChanged(remoteFlow.isWritable(stream));
    }
  }

  // --- what the connection handler asks of every stream --------------------------------------

  /** The overload manager's reset_high_memory_stream: each open stream checks what it holds. */
  void onResetHighMemory(DownstreamEvents.ResetHighMemory r) {
    forEachStream(s -> s.onResetHighMemory(r));
  }

  /** reduce_timeouts changed: each open stream re-arms its timers. */
  void rescaleTimers() {
    forEachStream(Http2ServerStream::rescaleTimers);
  }

  private void forEachStream(Consumer<Http2ServerStream> action) {
    try {
      connection.forEachActiveStream(stream -> {
        Http2ServerStream s = stream.getProperty(streamKey);
        if (s != null) {
          action.accept(s);
        }
        return true;
      });
    } catch (Http2Exception e) {
      codec.onError(ctx, true, e); // only the visitor could throw, and it does not
    }
  }

  // --- the streams' way back to the codec ----------------------------------------------------

  HttpConnectionManager hcm() {
    return hcm;
  }

  Worker worker() {
    return worker;
  }

  String remoteAddress() {
    return remoteAddress;
  }

  StreamDeadlines deadlines() {
    return deadlines;
  }

  /** What the connection's streams hold of the clusters' request budgets. */
  ConnectionShare share() {
    return share;
  }

  boolean tracksResponseBytes() {
    return tracksResponseBytes;
  }

  Http2ConnectionEncoder encoder() {
    return codec.encoder();
  }

  /** The codec's context: writes through the encoder start there. */
  ChannelHandlerContext ctx() {
    return ctx;
  }

  /**
   * A promise for stream writes nobody waits for. Unlike the pipeline's void promise, a failed
   * write (a stream the peer reset meanwhile) is not raised as the connection's exception: the
   * codec has dealt with the stream already.
   */
  ChannelPromise quietPromise() {
    return quietPromise;
  }

  boolean isWritable(Http2Stream stream) {
    return remoteFlow.isWritable(stream);
  }

  /** Flushes the connection once, after the current event-loop turn. */
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

  /** Gives {@code bytes} of a stream's request body back to the peer's windows (WINDOW_UPDATE). */
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

  /** GOAWAY, then close once the streams are done (overload's disable_http_keepalive). */
  void drain() {
    ctx.pipeline().fireUserEventTriggered(DownstreamEvents.Drain.INSTANCE);
  }

  void closeConnection() {
    ctx.channel().close();
  }
}
