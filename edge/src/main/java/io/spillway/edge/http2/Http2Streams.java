package io.spillway.edge.http2;

import io.netty.buffer.ByteBuf;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelPromise;
import io.netty.channel.VoidChannelPromise;
import io.netty.handler.codec.http.HttpHeaders;
import io.netty.handler.codec.http2.Http2Connection;
import io.netty.handler.codec.http2.Http2ConnectionAdapter;
import io.netty.handler.codec.http2.Http2Error;
import io.netty.handler.codec.http2.Http2Exception;
import io.netty.handler.codec.http2.Http2Headers;
import io.netty.handler.codec.http2.Http2RemoteFlowController;
import io.netty.handler.codec.http2.Http2Stream;
import io.spillway.edge.http.message.Http2Fields;
import java.util.function.Consumer;

/**
 * The streams of one HTTP/2 connection as the edge keeps them, either side: each stream's own
 * object ({@code S}) as a property of Netty's stream, and the streams' way to the codec — writes
 * through its encoder, resets, flow-control credit returned (WINDOW_UPDATE), writability, and one
 * flush per event-loop turn for every stream that wrote in it. Event loop only.
 *
 * @param <S> the edge's per-stream object
 */
public final class Http2Streams<S> {
  private final EdgeHttp2ConnectionHandler codec;
  private final ChannelHandlerContext ctx;
  private final Http2Connection connection;
  private final Http2RemoteFlowController remoteFlow;
  private final Http2Connection.PropertyKey key;
  private final ChannelPromise quietPromise;
  private boolean flushPending;
  private final Runnable flushTask = this::flushNow;

  /**
   * @param ctx the codec's context: writes through the encoder start there
   * @param onWritability a stream's writability changed (its own flow-control window, or the socket's)
   * @param onClosed a stream closed: both ways ended, a reset, or the connection went away
   */
  public Http2Streams(EdgeHttp2ConnectionHandler codec, ChannelHandlerContext ctx,
      java.util.function.BiConsumer<S, Boolean> onWritability, Consumer<S> onClosed) {
    this.codec = codec;
    this.ctx = ctx;
    this.connection = codec.connection();
    this.remoteFlow = connection.remote().flowController();
    this.key = connection.newKey();
    // Unlike the pipeline's void promise, a failed write (a stream the peer reset meanwhile) is
    // not raised as the connection's exception: the codec has dealt with the stream already.
    this.quietPromise = new VoidChannelPromise(ctx.channel(), false);
    remoteFlow.listener(stream -> {
      S s = stream.getProperty(key);
      if (s != null) {
        onWritability.accept(s, remoteFlow.isWritable(stream));
      }
    });
    connection.addListener(new Http2ConnectionAdapter() {
      @Override
      public void onStreamClosed(Http2Stream stream) {
        S s = stream.getProperty(key);
        if (s != null) {
          onClosed.accept(s);
        }
      }
    });
  }

  public Http2Connection connection() {
    return connection;
  }

  public ChannelHandlerContext ctx() {
    return ctx;
  }

  /** The edge's object of stream {@code id}, or {@code null}. */
  public S get(int id) {
    Http2Stream stream = connection.stream(id);
    return stream == null ? null : stream.getProperty(key);
  }

  public void put(Http2Stream stream, S s) {
    stream.setProperty(key, s);
  }

  /** Calls {@code action} for the edge's object of every active stream. */
  public void forEachActive(Consumer<S> action) {
    try {
      connection.forEachActiveStream(stream -> {
        S s = stream.getProperty(key);
        if (s != null) {
          action.accept(s);
        }
        return true;
      });
    } catch (Http2Exception e) {
      codec.onError(ctx, true, e); // only the visitor could throw, and it does not
    }
  }

  public void writeHeaders(Http2Stream stream, Http2Headers headers, boolean endStream) {
    writeHeaders(stream, headers, endStream, null);
  }

  /** Writes HEADERS; {@code promise} (or none when null) completes once the frame is on the socket. */
  public void writeHeaders(Http2Stream stream, Http2Headers headers, boolean endStream, ChannelPromise promise) {
    codec.encoder().writeHeaders(ctx, stream.id(), headers, 0, endStream, promise == null ? quietPromise : promise);
    if (endStream) {
      flushSoon();
    }
  }

  /** Writes a new stream's first HEADERS (which creates it, RFC 9113 §5.1) and returns it, or {@code null}. */
  public Http2Stream open(int id, Http2Headers headers, boolean endStream) {
    codec.encoder().writeHeaders(ctx, id, headers, 0, endStream, quietPromise);
    flushSoon();
    return connection.stream(id);
  }

  /** Writes a DATA frame; {@code promise} is {@code null} when nobody waits for it. */
  public void writeData(Http2Stream stream, ByteBuf data, boolean endStream, ChannelPromise promise) {
    codec.encoder().writeData(ctx, stream.id(), data, 0, endStream, promise == null ? quietPromise : promise);
    if (endStream) {
      flushSoon();
    }
  }

  /** Writes trailers, which end the stream. */
  public void writeTrailers(Http2Stream stream, HttpHeaders trailers, ChannelPromise promise) {
    writeHeaders(stream, Http2Fields.toFrame(trailers, 0), true, promise);
  }

  public void reset(Http2Stream stream, Http2Error error) {
    codec.resetStream(ctx, stream.id(), error.code(), ctx.newPromise());
    flushSoon();
  }

  /** Whether {@code stream} may send now; before a stream exists, whether the socket may. */
  public boolean isWritable(Http2Stream stream) {
    return stream == null ? ctx.channel().isWritable() : remoteFlow.isWritable(stream);
  }

  /** Gives {@code bytes} of what {@code stream} received back to the peer's windows (WINDOW_UPDATE). */
  public void consume(Http2Stream stream, int bytes) {
    try {
      if (connection.local().flowController().consumeBytes(stream, bytes)) {
        flushSoon();
      }
    } catch (Http2Exception e) {
      codec.onError(ctx, true, e);
    }
  }

  /** Flushes the connection once, after the current event-loop turn. */
  public void flushSoon() {
    if (!flushPending) {
      flushPending = true;
      ctx.executor().execute(flushTask);
    }
  }

  private void flushNow() {
    flushPending = false;
    codec.flush(ctx);
  }

  /**
   * One stream's received bytes not yet given back to the peer's window: given back as they are
   * handed on, except while reading is paused (back-pressure), when the peer gets no
   * WINDOW_UPDATE until reading resumes (RFC 9113 §5.2).
   */
  public static final class Credit {
    private boolean paused;
    private int unconsumed;

    /** A DATA frame of {@code flowControlled} bytes was handed on; returns the bytes to give back now. */
    public int received(int flowControlled, boolean endStream) {
      if (paused && !endStream) {
        unconsumed += flowControlled;
        return 0;
      }
      return flowControlled;
    }

    /** Pauses or resumes; on resume what was held goes back to the peer's window. */
    public void pause(boolean paused, Http2Streams<?> streams, Http2Stream stream) {
      this.paused = paused;
      if (!paused && unconsumed > 0 && stream != null) {
        int bytes = unconsumed;
        unconsumed = 0;
        streams.consume(stream, bytes);
      }
    }
  }
}
