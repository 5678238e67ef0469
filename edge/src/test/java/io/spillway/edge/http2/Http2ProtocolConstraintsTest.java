package io.spillway.edge.http2;

import static org.assertj.core.api.Assertions.assertThat;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import io.netty.channel.ChannelOutboundHandlerAdapter;
import io.netty.channel.ChannelPromise;
import io.netty.channel.embedded.EmbeddedChannel;
import io.netty.handler.codec.http2.DefaultHttp2Headers;
import io.netty.handler.codec.http2.DefaultHttp2HeadersEncoder;
import io.netty.handler.codec.http2.Http2CodecUtil;
import io.netty.handler.codec.http2.Http2Error;
import io.netty.handler.codec.http2.Http2Exception;
import io.netty.handler.codec.http2.Http2FrameAdapter;
import io.netty.handler.codec.http2.Http2FrameTypes;
import io.netty.handler.codec.http2.Http2Headers;
import io.netty.util.ReferenceCountUtil;
import io.spillway.edge.config.Http2Options;
import io.spillway.edge.stats.StatsStore;
import io.spillway.testkit.RawHttp2;
import java.io.ByteArrayOutputStream;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.OptionalInt;
import org.junit.jupiter.api.Test;

/**
 * {@link Http2ProtocolConstraints} in front of the real frame codec on an {@link EmbeddedChannel}:
 * frames are found whatever the read boundaries, each limit is applied as Envoy's formula says,
 * the codec never sees the offending frame, and outbound frames count until the socket takes them.
 */
class Http2ProtocolConstraintsTest {

  private static final int HEADER_LIST = 60 * 1024;

  private final StatsStore store = new StatsStore();
  private final Http2CodecStats stats = new Http2CodecStats(store.rootScope().scope("http2"));
  /** The streams whose HEADERS the codec decoded, in order. */
  private final List<Integer> received = new ArrayList<>();
  private EdgeHttp2ConnectionHandler codec;

  private static Http2Options limits(int maxOutbound, int maxControl) {
    Http2Options d = Http2Options.DOWNSTREAM_DEFAULTS;
    return new Http2Options(d.hpackTableSize(), d.maxConcurrentStreams(), OptionalInt.empty(), OptionalInt.empty(),
        maxOutbound, maxControl, d.maxConsecutiveInboundFramesWithEmptyPayload(),
        d.maxInboundPriorityFramesPerStream(), d.maxInboundWindowUpdateFramesPerDataFrameSent(), false, false);
  }

  /** A server codec with its constraints; the streams of HEADERS it decodes land in {@link #received}. */
  private EmbeddedChannel server(Http2Options options, boolean stuckSocket) {
    EmbeddedChannel ch = new EmbeddedChannel();
    if (stuckSocket) {
      ch.pipeline().addLast(new StuckSocket());
    }
    Http2CodecFactory factory = Http2CodecFactory.downstream(options, HEADER_LIST, 1024 * 1024,
        Duration.ofSeconds(5), stats);
    codec = factory.newCodec(new Http2FrameAdapter() {
      @Override
      public void onHeadersRead(ChannelHandlerContext ctx, int streamId, Http2Headers headers, int streamDependency,
          short weight, boolean exclusive, int padding, boolean endOfStream) {
        received.add(streamId); // the decoder calls this form for every HEADERS frame
      }
    });
    factory.addTo(ch.pipeline(), "h2-codec", codec);
    ch.pipeline().addLast(new ChannelInboundHandlerAdapter() {
      @Override
      public void userEventTriggered(ChannelHandlerContext ctx, Object evt) {
        ReferenceCountUtil.release(evt);
      }

      @Override
      public void exceptionCaught(ChannelHandlerContext ctx, Throwable cause) {
        // the codec answers connection errors itself
      }
    });
    return ch;
  }

  private static byte[] preface() {
    ByteBuf preface = Http2CodecUtil.connectionPrefaceBuf();
    byte[] bytes = new byte[preface.readableBytes()];
    preface.readBytes(bytes);
    return concat(bytes, RawHttp2.encodeFrame(Http2FrameTypes.SETTINGS, 0, 0, new byte[0]));
  }

  private static byte[] concat(byte[]... parts) {
    ByteArrayOutputStream all = new ByteArrayOutputStream();
    for (byte[] p : parts) {
      all.writeBytes(p);
    }
    return all.toByteArray();
  }

  private static byte[] frames(int count, int type, int flags, int streamId, byte[] payload) {
    byte[][] frames = new byte[count][];
    for (int i = 0; i < count; i++) {
      frames[i] = RawHttp2.encodeFrame(type, flags, streamId, payload);
    }
    return concat(frames);
  }

  private static byte[] priority() {
    return RawHttp2.encodeFrame(Http2FrameTypes.PRIORITY, 0, 1, new byte[] {0, 0, 0, 0, 15});
  }

  private static byte[] ping() {
    return RawHttp2.encodeFrame(Http2FrameTypes.PING, 0, 0, new byte[8]);
  }

  private static byte[] windowUpdate() {
    return RawHttp2.encodeFrame(Http2FrameTypes.WINDOW_UPDATE, 0, 0, new byte[] {0, 0, 0, 1});
  }

  /** Every frame the server wrote so far: {type, flags, stream, error code (GOAWAY/RST_STREAM)}. */
  private static List<long[]> written(EmbeddedChannel ch) {
    ByteArrayOutputStream out = new ByteArrayOutputStream();
    for (Object msg = ch.readOutbound(); msg != null; msg = ch.readOutbound()) {
      ByteBuf buf = (ByteBuf) msg;
      byte[] b = new byte[buf.readableBytes()];
      buf.readBytes(b);
      buf.release();
      out.writeBytes(b);
    }
    byte[] all = out.toByteArray();
    List<long[]> frames = new ArrayList<>();
    for (int at = 0; at + 9 <= all.length; ) {
      int length = (all[at] & 0xFF) << 16 | (all[at + 1] & 0xFF) << 8 | (all[at + 2] & 0xFF);
      int type = all[at + 3];
      long error = 0;
      if (type == Http2FrameTypes.GO_AWAY) {
        error = uint(all, at + 13);
      } else if (type == Http2FrameTypes.RST_STREAM) {
        error = uint(all, at + 9);
      }
      frames.add(new long[] {type, all[at + 4] & 0xFF, uint(all, at + 5) & 0x7FFF_FFFF, error});
      at += 9 + length;
    }
    return frames;
  }

  private static long goAwayCode(EmbeddedChannel ch) {
    return written(ch).stream().filter(f -> f[0] == Http2FrameTypes.GO_AWAY).findFirst()
        .map(f -> f[3]).orElseThrow(() -> new AssertionError("no GOAWAY"));
  }

  private static long uint(byte[] b, int at) {
    return ((b[at] & 0xFFL) << 24) | (b[at + 1] & 0xFF) << 16 | (b[at + 2] & 0xFF) << 8 | (b[at + 3] & 0xFF);
  }

  @Test
  void findsFramesWhateverTheReadBoundaries() {
    EmbeddedChannel ch = server(Http2Options.DOWNSTREAM_DEFAULTS, false);
    byte[] bytes = concat(preface(), frames(100, Http2FrameTypes.PRIORITY, 0, 1, new byte[] {0, 0, 0, 0, 15}),
        priority());
    int read = 0;
    // One byte per read: the preface, every header and payload split; the channel closes after the GOAWAY.
    while (read < bytes.length && ch.isOpen()) {
      ch.writeInbound(Unpooled.wrappedBuffer(new byte[] {bytes[read++]}));
    }

    assertThat(read).as("the breach is seen at the 101st frame's header").isEqualTo(bytes.length - 5);

    assertThat(stats.inboundPriorityFramesFlood.value()).isEqualTo(1);
    assertThat(goAwayCode(ch)).isEqualTo(Http2Error.ENHANCE_YOUR_CALM.code());
  }

  @Test
  void theCodecNeverSeesTheOffendingFrameNorWhatFollows() {
    EmbeddedChannel ch = server(Http2Options.DOWNSTREAM_DEFAULTS, false);
    ch.writeInbound(Unpooled.wrappedBuffer(preface()));
    written(ch);
    ch.writeInbound(Unpooled.wrappedBuffer(concat(frames(5, Http2FrameTypes.WINDOW_UPDATE, 0, 0,
        new byte[] {0, 0, 0, 1}), ping(), windowUpdate(), ping())));

    List<long[]> out = written(ch);
    assertThat(out.stream().filter(f -> f[0] == Http2FrameTypes.PING).count())
        .as("the PING before the sixth WINDOW_UPDATE is answered, the one after it is not").isEqualTo(1);
    assertThat(out.stream().filter(f -> f[0] == Http2FrameTypes.GO_AWAY).map(f -> f[3]).toList())
        .containsExactly(Http2Error.ENHANCE_YOUR_CALM.code());
    assertThat(stats.inboundWindowUpdateFramesFlood.value()).isEqualTo(1);
  }

  @Test
  void paddingAloneIsAnEmptyPayload() {
    EmbeddedChannel ch = server(Http2Options.DOWNSTREAM_DEFAULTS, false);
    ch.writeInbound(Unpooled.wrappedBuffer(concat(preface(), headers(1, false))));
    // PADDED with pad length 3 and three bytes of padding: nothing else.
    byte[] padded = RawHttp2.encodeFrame(Http2FrameTypes.DATA, RawHttp2.PADDED, 1, new byte[] {3, 0, 0, 0});
    ch.writeInbound(Unpooled.wrappedBuffer(padded));
    assertThat(stats.inboundEmptyFramesFlood.value()).as("one is allowed").isZero();
    ch.writeInbound(Unpooled.wrappedBuffer(padded));

    assertThat(stats.inboundEmptyFramesFlood.value()).isEqualTo(1);
    assertThat(goAwayCode(ch)).isEqualTo(Http2Error.ENHANCE_YOUR_CALM.code());
  }

  @Test
  void anAnsweredStreamAndTheDataSentRaiseTheAllowances() {
    EmbeddedChannel ch = server(Http2Options.DOWNSTREAM_DEFAULTS, false);
    ch.writeInbound(Unpooled.wrappedBuffer(concat(preface(), headers(1, true))));
    assertThat(received).containsExactly(1);
    ChannelHandlerContext codecCtx = ch.pipeline().context(codec);
    codec.encoder().writeHeaders(codecCtx, 1, new DefaultHttp2Headers().status("200"), 0, false, codecCtx.newPromise());
    codec.encoder().writeData(codecCtx, 1, Unpooled.wrappedBuffer(new byte[10]), 0, true, codecCtx.newPromise());
    ch.flush();
    written(ch);

    // One stream opened (response headers sent) and one DATA frame sent: 5 + 2 × (1 + 10 × 1) = 27.
    ch.writeInbound(Unpooled.wrappedBuffer(frames(27, Http2FrameTypes.WINDOW_UPDATE, 0, 0, new byte[] {0, 0, 0, 1})));
    // And 100 × (1 + 1) = 200 PRIORITY frames.
    ch.writeInbound(Unpooled.wrappedBuffer(frames(200, Http2FrameTypes.PRIORITY, 0, 3, new byte[] {0, 0, 0, 0, 15})));
    assertThat(stats.inboundWindowUpdateFramesFlood.value() + stats.inboundPriorityFramesFlood.value()).isZero();
    ch.writeInbound(Unpooled.wrappedBuffer(windowUpdate()));

    assertThat(stats.inboundWindowUpdateFramesFlood.value()).isEqualTo(1);
  }

  @Test
  void controlFramesTheSocketDoesNotTakeAreAFlood() {
    EmbeddedChannel ch = server(limits(10_000, 100), true);
    ch.writeInbound(Unpooled.wrappedBuffer(preface()));
    // The server's SETTINGS and its ACK of ours are queued too: 98 PING ACKs reach the limit.
    ch.writeInbound(Unpooled.wrappedBuffer(frames(98, Http2FrameTypes.PING, 0, 0, new byte[8])));
    assertThat(ch.isOpen()).isTrue();
    ch.writeInbound(Unpooled.wrappedBuffer(ping()));

    assertThat(stats.outboundControlFlood.value()).isEqualTo(1);
    assertThat(stats.outboundFlood.value()).isZero();
    assertThat(ch.isOpen()).as("closed at once: the peer is not reading").isFalse();
  }

  @Test
  void framesOfAnyTypeTheSocketDoesNotTakeAreAFlood() {
    EmbeddedChannel ch = server(limits(5, 1_000), true);
    // SETTINGS and the connection WINDOW_UPDATE, the ACK of our SETTINGS, two PING ACKs: five.
    ch.writeInbound(Unpooled.wrappedBuffer(concat(preface(), ping(), ping())));
    assertThat(ch.isOpen()).isTrue();
    ch.writeInbound(Unpooled.wrappedBuffer(ping()));

    assertThat(stats.outboundFlood.value()).isEqualTo(1);
    assertThat(ch.isOpen()).isFalse();
  }

  @Test
  void framesTheSocketTookNoLongerCount() {
    EmbeddedChannel ch = server(limits(10_000, 100), false);
    ch.writeInbound(Unpooled.wrappedBuffer(preface()));
    for (int i = 0; i < 20; i++) {
      ch.writeInbound(Unpooled.wrappedBuffer(frames(99, Http2FrameTypes.PING, 0, 0, new byte[8])));
      written(ch);
    }

    assertThat(stats.outboundControlFlood.value()).isZero();
    assertThat(ch.isOpen()).isTrue();
  }

  @Test
  void countsResetsBothWays() {
    EmbeddedChannel ch = server(Http2Options.DOWNSTREAM_DEFAULTS, false);
    ch.writeInbound(Unpooled.wrappedBuffer(concat(preface(), headers(1, false),
        RawHttp2.encodeFrame(Http2FrameTypes.RST_STREAM, 0, 1, new byte[] {0, 0, 0, 8}))));
    ch.writeInbound(Unpooled.wrappedBuffer(headers(3, false)));
    assertThat(received).containsExactly(1, 3);
    ChannelHandlerContext codecCtx = ch.pipeline().context(codec);
    codec.resetStream(codecCtx, 3, Http2Error.CANCEL.code(), codecCtx.newPromise());
    ch.flush();

    assertThat(stats.rxReset.value()).isEqualTo(1);
    assertThat(stats.txReset.value()).isEqualTo(1);
    assertThat(written(ch).stream().filter(f -> f[0] == Http2FrameTypes.RST_STREAM).map(f -> f[2]).toList())
        .containsExactly(3L);
  }

  private static byte[] headers(int streamId, boolean endStream) {
    DefaultHttp2HeadersEncoder encoder = new DefaultHttp2HeadersEncoder();
    ByteBuf block = Unpooled.buffer();
    try {
      encoder.encodeHeaders(streamId, new DefaultHttp2Headers().method("GET").scheme("http").path("/")
          .authority("a"), block);
      byte[] b = new byte[block.readableBytes()];
      block.readBytes(b);
      return RawHttp2.encodeFrame(Http2FrameTypes.HEADERS, RawHttp2.END_HEADERS | (endStream ? RawHttp2.END_STREAM : 0),
          streamId, b);
    } catch (Http2Exception e) {
      throw new AssertionError(e);
    } finally {
      block.release();
    }
  }

  /** A socket that never takes anything: writes stay pending, their promises incomplete. */
  private static final class StuckSocket extends ChannelOutboundHandlerAdapter {
    @Override
    public void write(ChannelHandlerContext ctx, Object msg, ChannelPromise promise) {
      ReferenceCountUtil.release(msg);
    }

    @Override
    public void flush(ChannelHandlerContext ctx) {
      // nothing leaves
    }
  }
}
