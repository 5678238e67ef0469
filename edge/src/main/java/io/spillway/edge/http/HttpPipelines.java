package io.spillway.edge.http;

import io.netty.channel.Channel;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import io.netty.channel.ChannelPipeline;
import io.netty.handler.codec.http.HttpDecoderConfig;
import io.netty.handler.codec.http.HttpResponseEncoder;
import io.spillway.edge.http2.EdgeHttp2ConnectionHandler;
import io.spillway.edge.http2.Http2CodecFactory;
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
   * An HTTP/1.1 connection switching protocols (101 sent): the encoder, conformance and validator
   * steps leave, so writes go out as they are. The decoder stays until {@link #removeHttp1Decoder}.
   */
  static void removeHttp1CodecOutbound(ChannelPipeline p) {
    p.remove("http1-validator");
    p.remove("http1-conformance");
    p.remove("http1-encoder");
  }

  /** The decoder leaves; the bytes it holds go on to the connection handler as they are. */
  static void removeHttp1Decoder(ChannelPipeline p) {
    p.remove("http1-decoder");
  }

  /**
   * HTTP/2: flood limits → codec (frames, SETTINGS, windows and limits from the connection
   * manager's {@code http2_protocol_options}, see {@link Http2CodecFactory}; its frames go to
   * {@link Http2ServerStreams}, one {@link Http2ServerStream} per stream, all sharing the
   * connection's {@link io.spillway.edge.upstream.ConnectionShare}) → connection handler (idle,
   * drain, premature resets).
   */
  public static void configureHttp2(ChannelPipeline p, HttpConnectionManager hcm, Worker worker) {
    Channel parent = p.channel();
    String remote = parent.remoteAddress() instanceof InetSocketAddress isa
        ? isa.getAddress().getHostAddress() : "127.0.0.1";
    Http2ServerStreams streams = new Http2ServerStreams(hcm, worker, remote, new StreamDeadlines(parent.eventLoop()),
        hcm.overload().tracksStreams());
    EdgeHttp2ConnectionHandler codec = hcm.http2Codecs().newCodec(streams);
    hcm.http2Codecs().addTo(p, "h2-codec", codec);
    streams.attach(codec, p.context(codec));
    p.addLast("h2-connection", new Http2ServerConnection(hcm, codec, streams));
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
