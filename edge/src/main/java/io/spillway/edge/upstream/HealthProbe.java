package io.spillway.edge.upstream;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import io.netty.channel.Channel;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import io.netty.channel.ChannelPipeline;
import io.netty.handler.codec.http.DefaultFullHttpRequest;
import io.netty.handler.codec.http.DefaultHttpHeaders;
import io.netty.handler.codec.http.FullHttpRequest;
import io.netty.handler.codec.http.HttpClientCodec;
import io.netty.handler.codec.http.HttpHeaderNames;
import io.netty.handler.codec.http.HttpHeaders;
import io.netty.handler.codec.http.HttpMethod;
import io.netty.handler.codec.http.HttpResponse;
import io.netty.handler.codec.http.HttpUtil;
import io.netty.handler.codec.http.HttpVersion;
import io.netty.handler.codec.http.LastHttpContent;
import io.netty.util.ReferenceCountUtil;
import io.spillway.edge.config.HostHealthConfig;
import io.spillway.edge.http.message.Http2Fields;
import java.util.Arrays;
import java.util.List;

/**
 * What one health check sends and how its answer is judged: HTTP/1.1 or HTTP/2 with prior
 * knowledge (a request, the status against {@code expected_statuses} / {@code retriable_statuses})
 * or TCP (connect, optionally send bytes and wait for the expected ones). Each probe is built once per checker; its handlers run on
 * the health-check loop and report to the {@link HealthChecker.Session} that owns the connection.
 */
sealed interface HealthProbe {

  static HealthProbe of(HostHealthConfig.Probe probe) {
    return switch (probe) {
      case HostHealthConfig.HttpProbe http -> http.http2() ? new Http2(http) : new Http1(http);
      case HostHealthConfig.TcpProbe tcp -> new Tcp(tcp);
    };
  }

  /** Adds the probe's handlers to a new check connection. */
  void initChannel(ChannelPipeline pipeline, HealthChecker.Session session);

  /** Starts one check on a connected channel. */
  void send(Channel channel, HealthChecker.Session session);

  /** Whether the connection closes after every check whatever {@code reuse_connection} says. */
  boolean closesAfterCheck();

  /** Envoy's HTTP health checker over HTTP/1.1. */
  final class Http1 implements HealthProbe {
    static final String IMMEDIATE_FAIL = "x-envoy-immediate-health-check-fail";
    /** On a passed check's response: the host is degraded (Envoy's {@code degraded_active_hc}). */
    static final String DEGRADED = "x-envoy-degraded";
    private final HostHealthConfig.HttpProbe config;
    private final HttpMethod method;
    private final HttpHeaders headers;

    Http1(HostHealthConfig.HttpProbe config) {
      this.config = config;
      this.method = HttpMethod.valueOf(config.method());
      HttpHeaders h = new DefaultHttpHeaders();
      h.set(HttpHeaderNames.HOST, config.host());
      h.set(HttpHeaderNames.USER_AGENT, "Envoy/HC");
      config.headers().applyTo(h);
      this.headers = h;
    }

    @Override
    public void initChannel(ChannelPipeline pipeline, HealthChecker.Session session) {
      pipeline.addLast("codec", new HttpClientCodec());
      pipeline.addLast("health-check", new ChannelInboundHandlerAdapter() {
        private int status;
        private boolean keepAlive;

        @Override
        public void channelRead(ChannelHandlerContext ctx, Object msg) {
          try {
            if (!session.current(ctx.channel())) {
              return;
            }
            if (msg instanceof HttpResponse response) {
              status = response.status().code();
              keepAlive = HttpUtil.isKeepAlive(response);
              if (response.headers().contains(IMMEDIATE_FAIL)) {
                session.immediateFail = true;
              }
              session.degraded = response.headers().contains(DEGRADED);
            }
            if (msg instanceof LastHttpContent && status >= 200) {
              int s = status;
              status = 0;
              if (!keepAlive) {
                ctx.close();
              }
              session.finish(verdict(config, session, s));
            }
          } finally {
            ReferenceCountUtil.release(msg);
          }
        }

        @Override
        public void channelInactive(ChannelHandlerContext ctx) {
          session.connectionLost(ctx.channel());
        }

        @Override
        public void exceptionCaught(ChannelHandlerContext ctx, Throwable cause) {
          ctx.close();
        }
      });
    }

    @Override
    public void send(Channel channel, HealthChecker.Session session) {
      FullHttpRequest request = new DefaultFullHttpRequest(HttpVersion.HTTP_1_1, method, config.path(),
          Unpooled.EMPTY_BUFFER);
      request.headers().set(headers);
      if (!session.config().reuseConnection()) {
        request.headers().set(HttpHeaderNames.CONNECTION, "close");
      }
      channel.writeAndFlush(request, channel.voidPromise());
    }

    @Override
    public boolean closesAfterCheck() {
      return false;
    }
  }

  /** The verdict on an HTTP check's status, as Envoy's HTTP health checker gives it. */
  private static HealthChecker.Result verdict(HostHealthConfig.HttpProbe config, HealthChecker.Session session,
      int status) {
    return session.immediateFail ? HealthChecker.Result.FAIL
        : config.expected(status) ? HealthChecker.Result.PASS
        : config.retriable(status) ? HealthChecker.Result.FAIL_RETRIABLE
        : HealthChecker.Result.FAIL;
  }

  /**
   * Envoy's HTTP health checker over HTTP/2 ({@code codec_client_type: HTTP2}): cleartext with
   * prior knowledge (RFC 9113 §3.3), one stream per check on the check's connection.
   */
  final class Http2 implements HealthProbe {
    private final HostHealthConfig.HttpProbe config;
    private final io.netty.handler.codec.http2.Http2Headers headers;

    Http2(HostHealthConfig.HttpProbe config) {
      this.config = config;
      HttpHeaders fields = new DefaultHttpHeaders();
      fields.set(HttpHeaderNames.USER_AGENT, "Envoy/HC");
      config.headers().applyTo(fields);
      this.headers = Http2Fields.toFrame(fields, 4)
          .method(config.method()).scheme("http").authority(config.host()).path(config.path());
    }

    @Override
    public void initChannel(ChannelPipeline pipeline, HealthChecker.Session session) {
      pipeline.addLast("h2", io.netty.handler.codec.http2.Http2FrameCodecBuilder.forClient().build());
      pipeline.addLast("streams", new io.netty.handler.codec.http2.Http2MultiplexHandler(
          new ChannelInboundHandlerAdapter() {
            @Override
            public void channelRead(ChannelHandlerContext ctx, Object msg) {
              ReferenceCountUtil.release(msg); // no pushed streams are expected
            }
          }));
      pipeline.addLast("health-check", new ChannelInboundHandlerAdapter() {
        @Override
        public void channelInactive(ChannelHandlerContext ctx) {
          session.connectionLost(ctx.channel());
        }

        @Override
        public void exceptionCaught(ChannelHandlerContext ctx, Throwable cause) {
          ctx.close();
        }
      });
    }

    @Override
    public void send(Channel channel, HealthChecker.Session session) {
      new io.netty.handler.codec.http2.Http2StreamChannelBootstrap(channel)
          .handler(new ChannelInboundHandlerAdapter() {
            private int status;

            @Override
            public void channelRead(ChannelHandlerContext ctx, Object msg) {
              try {
                if (!session.current(ctx.channel().parent())) {
                  return;
                }
                boolean end = false;
                if (msg instanceof io.netty.handler.codec.http2.Http2HeadersFrame frame) {
                  CharSequence s = frame.headers().status();
                  if (s != null && status == 0) {
                    int code = Integer.parseInt(s.toString());
                    if (code >= 200) {
                      status = code;
                      if (frame.headers().contains(Http1.IMMEDIATE_FAIL)) {
                        session.immediateFail = true;
                      }
                      session.degraded = frame.headers().contains(Http1.DEGRADED);
                    }
                  }
                  end = frame.isEndStream();
                } else if (msg instanceof io.netty.handler.codec.http2.Http2DataFrame frame) {
                  end = frame.isEndStream();
                } else if (msg instanceof io.netty.handler.codec.http2.Http2ResetFrame) {
                  session.finish(HealthChecker.Result.FAIL_NETWORK);
                  return;
                }
                if (end && status >= 200) {
                  session.finish(verdict(config, session, status));
                }
              } catch (NumberFormatException e) {
                session.finish(HealthChecker.Result.FAIL_NETWORK);
              } finally {
                ReferenceCountUtil.release(msg);
              }
            }
          })
          .open()
          .addListener(f -> {
            if (!f.isSuccess()) {
              session.finish(HealthChecker.Result.FAIL_NETWORK);
              return;
            }
            io.netty.handler.codec.http2.Http2StreamChannel stream =
                (io.netty.handler.codec.http2.Http2StreamChannel) f.getNow();
            stream.writeAndFlush(new io.netty.handler.codec.http2.DefaultHttp2HeadersFrame(headers, true));
          });
    }

    @Override
    public boolean closesAfterCheck() {
      return false;
    }
  }

  /** Envoy's TCP health checker: connect only, or send and match the answer. */
  final class Tcp implements HealthProbe {
    private final byte[] send;
    private final List<byte[]> receive;

    Tcp(HostHealthConfig.TcpProbe config) {
      this.send = config.send();
      this.receive = config.receive();
    }

    @Override
    public void initChannel(ChannelPipeline pipeline, HealthChecker.Session session) {
      pipeline.addLast("health-check", new ChannelInboundHandlerAdapter() {
        private ByteBuf received;

        @Override
        public void channelRead(ChannelHandlerContext ctx, Object msg) {
          if (!(msg instanceof ByteBuf in)) {
            ReferenceCountUtil.release(msg);
            return;
          }
          try {
            if (receive.isEmpty() || !session.current(ctx.channel())) {
              return;
            }
            if (received == null) {
              received = ctx.alloc().heapBuffer();
            }
            received.writeBytes(in);
            if (received.readableBytes() > 64 * 1024) {
              received.skipBytes(received.readableBytes() - 64 * 1024);
            }
            if (matches(received, receive)) {
              received.clear();
              session.finish(HealthChecker.Result.PASS);
            }
          } finally {
            in.release();
          }
        }

        @Override
        public void channelInactive(ChannelHandlerContext ctx) {
          if (received != null) {
            received.release();
            received = null;
          }
          session.connectionLost(ctx.channel());
        }

        @Override
        public void exceptionCaught(ChannelHandlerContext ctx, Throwable cause) {
          ctx.close();
        }
      });
    }

    @Override
    public void send(Channel channel, HealthChecker.Session session) {
      if (send.length == 0) {
        if (receive.isEmpty()) {
          session.finish(HealthChecker.Result.PASS);
        }
        return;
      }
      channel.writeAndFlush(Unpooled.wrappedBuffer(send)).addListener(f -> {
        if (f.isSuccess() && receive.isEmpty()) {
          session.finish(HealthChecker.Result.PASS);
        }
      });
    }

    @Override
    public boolean closesAfterCheck() {
      return send.length == 0 && receive.isEmpty();
    }

    /** Whether every payload occurs in {@code buf}, in order (Envoy's fuzzy match). */
    static boolean matches(ByteBuf buf, List<byte[]> payloads) {
      byte[] data = new byte[buf.readableBytes()];
      buf.getBytes(buf.readerIndex(), data);
      int from = 0;
      for (byte[] p : payloads) {
        int at = indexOf(data, p, from);
        if (at < 0) {
          return false;
        }
        from = at + p.length;
      }
      return true;
    }

    private static int indexOf(byte[] data, byte[] p, int from) {
      for (int i = from; i + p.length <= data.length; i++) {
        if (Arrays.equals(data, i, i + p.length, p, 0, p.length)) {
          return i;
        }
      }
      return -1;
    }
  }
}
