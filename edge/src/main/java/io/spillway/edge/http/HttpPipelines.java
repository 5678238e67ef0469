package io.spillway.edge.http;

import io.netty.channel.Channel;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import io.netty.channel.ChannelInitializer;
import io.netty.channel.ChannelPipeline;
import io.netty.handler.codec.http.HttpDecoderConfig;
import io.netty.handler.codec.http.HttpResponseEncoder;
import io.netty.handler.codec.http2.Http2FrameCodec;
import io.netty.handler.codec.http2.Http2MultiplexHandler;
import io.netty.handler.codec.http2.Http2StreamChannel;
import io.spillway.edge.http2.Http2CodecFactory;
import io.spillway.edge.upstream.ConnectionShare;
import io.spillway.edge.upstream.Worker;
import java.net.InetSocketAddress;

/**
 * Builds the downstream HTTP pipelines once the protocol is known. Reading a pipeline top to
 * bottom gives the order a request meets its handlers.
 */
public final class HttpPipelines {
  private HttpPipelines() {}

  /**
   * HTTP/1.1: decoder (limits from the connection manager, strict request line and framing) →
   * encoder → conformance (Host, request-target form, transfer codings) → validator (answers and
   * closes on anything refused so far) → connection handler (requests, keep-alive).
   */
  public static void configureHttp1(ChannelPipeline p, HttpConnectionManager hcm, Worker worker) {
    var config = hcm.config();
    Http1RequestValidator validator = new Http1RequestValidator(hcm.stats(), config.serverName(), config.http1());
    Http1ServerHandler handler = new Http1ServerHandler(hcm, worker, validator);
    p.addLast("http1-bytes", new BytesHook(handler));
    addHttp1Codec(p, config.maxRequestHeadersBytes(), validator);
    p.addLast("http1-connection", handler);
  }

  /**
   * The HTTP/1.1 codec steps, before the connection handler: decoder → encoder → conformance →
   * validator. The request line may be as long as the header block ({@code maxRequestHeadersBytes},
   * at least 1 KiB).
   */
  static void addHttp1Codec(ChannelPipeline p, int maxRequestHeadersBytes, Http1RequestValidator validator) {
    HttpDecoderConfig decoder = new HttpDecoderConfig()
        .setMaxInitialLineLength(Math.max(1024, maxRequestHeadersBytes))
        .setMaxHeaderSize(maxRequestHeadersBytes)
        .setMaxChunkSize(64 * 1024)
        .setValidateHeaders(true)
        .setAllowDuplicateContentLengths(false)
        .setStrictLineParsing(true)
        .setUseRfc9112TransferEncoding(true);
    p.addLast("http1-decoder", new Http1RequestDecoder(decoder));
    p.addLast("http1-encoder", new HttpResponseEncoder());
    p.addLast("http1-conformance", new Http1RequestConformance());
    p.addLast("http1-validator", validator);
  }

  /**
   * HTTP/2: flood limits and frame codec (SETTINGS, windows and limits from the connection
   * manager's {@code http2_protocol_options}, see {@link Http2CodecFactory}) → stream multiplexer
   * (one child channel and {@link Http2StreamServerHandler} per stream, all sharing the
   * connection's {@link ConnectionShare}) → connection handler (idle, drain, premature resets).
   */
  public static void configureHttp2(ChannelPipeline p, HttpConnectionManager hcm, Worker worker) {
    Http2FrameCodec codec = hcm.http2Codecs().newCodec();
    Channel parent = p.channel();
    String remote = parent.remoteAddress() instanceof InetSocketAddress isa
        ? isa.getAddress().getHostAddress() : "127.0.0.1";
    hcm.http2Codecs().addTo(p, "h2-codec", codec);
    Http2ServerConnection connection = new Http2ServerConnection(hcm, codec);
    boolean trackStreams = hcm.overload().tracksStreams();
    StreamDeadlines deadlines = new StreamDeadlines(parent.eventLoop());
    ConnectionShare share = new ConnectionShare();
    p.addLast("h2-streams", new Http2MultiplexHandler(new ChannelInitializer<Http2StreamChannel>() {
      @Override
      protected void initChannel(Http2StreamChannel ch) {
        ch.pipeline().addLast("h2-stream", new Http2StreamServerHandler(hcm, worker, remote, deadlines, share));
        if (trackStreams) {
          connection.track(ch); // only when timer re-scaling or high-memory resets must reach the streams
        }
      }
    }));
    p.addLast("h2-connection", connection);
  }

  /** Tells the HTTP/1 connection handler that bytes arrived (starts the request-header timer). */
  private static final class BytesHook extends ChannelInboundHandlerAdapter {
    private final Http1ServerHandler handler;

    BytesHook(Http1ServerHandler handler) {
      this.handler = handler;
    }

    @Override
    public void channelRead(ChannelHandlerContext ctx, Object msg) {
      handler.onBytes();
      ctx.fireChannelRead(msg);
    }
  }
}
