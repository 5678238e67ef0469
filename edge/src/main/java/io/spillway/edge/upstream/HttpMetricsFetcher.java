package io.spillway.edge.upstream;

import io.netty.bootstrap.Bootstrap;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import io.netty.channel.Channel;
import io.netty.channel.ChannelFuture;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import io.netty.channel.ChannelInitializer;
import io.netty.channel.ChannelOption;
import io.netty.channel.ChannelPipeline;
import io.netty.handler.codec.http.DefaultFullHttpRequest;
import io.netty.handler.codec.http.HttpClientCodec;
import io.netty.handler.codec.http.HttpContent;
import io.netty.handler.codec.http.HttpHeaderNames;
import io.netty.handler.codec.http.HttpMethod;
import io.netty.handler.codec.http.HttpResponse;
import io.netty.handler.codec.http.HttpUtil;
import io.netty.handler.codec.http.HttpVersion;
import io.netty.handler.codec.http.LastHttpContent;
import io.netty.handler.codec.http2.DefaultHttp2Headers;
import io.netty.handler.codec.http2.DefaultHttp2HeadersFrame;
import io.netty.handler.codec.http2.Http2DataFrame;
import io.netty.handler.codec.http2.Http2FrameCodecBuilder;
import io.netty.handler.codec.http2.Http2Headers;
import io.netty.handler.codec.http2.Http2HeadersFrame;
import io.netty.handler.codec.http2.Http2MultiplexHandler;
import io.netty.handler.codec.http2.Http2ResetFrame;
import io.netty.handler.codec.http2.Http2StreamChannel;
import io.netty.handler.codec.http2.Http2StreamChannelBootstrap;
import io.netty.util.ReferenceCountUtil;
import io.spillway.edge.config.ClusterConfig;
import io.spillway.edge.config.MetricsPollerConfig;
import java.nio.charset.StandardCharsets;
import java.util.HashMap;
import java.util.Map;

/**
 * The metrics poller's GET, on the health-check loop: one connection per host, kept between polls,
 * opened as the cluster's own connections are (its transport socket, so a TLS cluster's polls go
 * over TLS, and its protocol: HTTP/1.1, or HTTP/2 with one stream per poll). A body over {@link
 * #MAX_BODY_BYTES} fails the poll and closes the connection. No request header but {@code Host}
 * (or {@code :authority}), {@code Accept} and {@code User-Agent}: no {@code Accept-Encoding}, so the
 * body comes uncompressed.
 */
final class HttpMetricsFetcher implements HostMetricsPoller.Fetcher {
  /** The largest body read (node_exporter's is about 150 KiB). */
  static final int MAX_BODY_BYTES = 1024 * 1024;
  static final String USER_AGENT = "spillway-metrics-poller";

  private final Cluster cluster;
  private final MetricsPollerConfig config;
  private final HealthCheckLoop loop;
  private final boolean http2;
  private final String accept;
  /** Connections by host; touched on the loop only. */
  private final Map<Host, Connection> connections = new HashMap<>();

  HttpMetricsFetcher(Cluster cluster, MetricsPollerConfig config, HealthCheckLoop loop) {
    this.cluster = cluster;
    this.config = config;
    this.loop = loop;
    this.http2 = cluster.config().protocol() == ClusterConfig.UpstreamProtocol.HTTP2;
    this.accept = config.format() == MetricsPollerConfig.Format.PROMETHEUS
        ? "text/plain;version=0.0.4;q=1.0,*/*;q=0.1"
        : "application/json";
  }

  @Override
  public void fetch(Host host, HostMetricsPoller.Callback callback) {
    Connection c = connections.get(host);
    if (c == null || c.connected && !c.channel.isActive()) {
      if (c != null) {
        c.channel.close();
      }
      c = connect(host);
      connections.put(host, c);
    }
    c.start(callback);
  }

  @Override
  public void abandon(Host host) {
    Connection c = connections.remove(host);
    if (c != null) {
      c.callback = null;
      c.channel.close();
    }
  }

  private String authority(Host host) {
    return config.host().isEmpty() ? Host.envoyAddress(host.address()) : config.host();
  }

  private Connection connect(Host host) {
    Connection c = new Connection(host);
    Bootstrap b = new Bootstrap()
        .group(loop.loop())
        .channelFactory(loop.channelFactory()::get)
        .option(ChannelOption.ALLOCATOR, loop.allocator())
        .option(ChannelOption.TCP_NODELAY, true)
        .option(ChannelOption.CONNECT_TIMEOUT_MILLIS, (int) Math.max(1, config.timeout().toMillis()))
        .remoteAddress(host.address())
        .handler(new ChannelInitializer<>() {
          @Override
          protected void initChannel(Channel ch) {
            UpstreamTls tls = cluster.tls();
            if (tls != null) {
              ch.pipeline().addLast("tls", tls.newHandler(ch.alloc(), host));
            }
            c.initChannel(ch.pipeline());
          }
        });
    ChannelFuture connect = b.connect();
    c.channel = connect.channel();
    connect.addListener(f -> {
      if (f.isSuccess()) {
        c.connected = true;
        c.send();
      } else {
        c.fail();
      }
    });
    return c;
  }

  /** One host's connection and the poll under way on it. */
  private final class Connection {
    final Host host;
    Channel channel;
    boolean connected;
    HostMetricsPoller.Callback callback;
    int status;
    ByteBuf body;

    Connection(Host host) {
      this.host = host;
    }

    void start(HostMetricsPoller.Callback cb) {
      callback = cb;
      status = 0;
      if (connected) {
        send();
      }
    }

    void initChannel(ChannelPipeline p) {
      if (http2) {
        p.addLast("h2", Http2FrameCodecBuilder.forClient().build());
        p.addLast("streams", new Http2MultiplexHandler(new ChannelInboundHandlerAdapter() {
          @Override
          public void channelRead(ChannelHandlerContext ctx, Object msg) {
            ReferenceCountUtil.release(msg); // no pushed streams are expected
          }
        }));
      } else {
        p.addLast("codec", new HttpClientCodec());
        p.addLast("metrics", new ChannelInboundHandlerAdapter() {
          private boolean keepAlive;

          @Override
          public void channelRead(ChannelHandlerContext ctx, Object msg) {
            try {
              if (msg instanceof HttpResponse r) {
                status = r.status().code();
                keepAlive = HttpUtil.isKeepAlive(r);
                if (status >= 100 && status < 200) {
                  status = 0; // an interim response; the final one follows
                }
              }
              if (msg instanceof HttpContent content && status >= 200 && !append(content.content())) {
                return;
              }
              if (msg instanceof LastHttpContent && status >= 200) {
                complete();
                if (!keepAlive) {
                  ctx.close();
                }
              }
            } finally {
              ReferenceCountUtil.release(msg);
            }
          }
        });
      }
      p.addLast("closed", new ChannelInboundHandlerAdapter() {
        @Override
        public void channelInactive(ChannelHandlerContext ctx) {
          fail();
          ctx.fireChannelInactive();
        }

        @Override
        public void exceptionCaught(ChannelHandlerContext ctx, Throwable cause) {
          ctx.close();
        }
      });
    }

    void send() {
      if (callback == null || !channel.isActive()) {
        return;
      }
      if (http2) {
        sendHttp2();
        return;
      }
      DefaultFullHttpRequest request = new DefaultFullHttpRequest(HttpVersion.HTTP_1_1, HttpMethod.GET,
          config.path(), Unpooled.EMPTY_BUFFER);
      request.headers().set(HttpHeaderNames.HOST, authority(host));
      request.headers().set(HttpHeaderNames.ACCEPT, accept);
      request.headers().set(HttpHeaderNames.USER_AGENT, USER_AGENT);
      channel.writeAndFlush(request, channel.voidPromise());
    }

    private void sendHttp2() {
      Http2Headers headers = new DefaultHttp2Headers().method("GET").scheme(cluster.tls() == null ? "http" : "https")
          .authority(authority(host)).path(config.path());
      headers.set(HttpHeaderNames.ACCEPT, accept);
      headers.set(HttpHeaderNames.USER_AGENT, USER_AGENT);
      new Http2StreamChannelBootstrap(channel).handler(new ChannelInboundHandlerAdapter() {
        @Override
        public void channelRead(ChannelHandlerContext ctx, Object msg) {
          try {
            boolean end = false;
            if (msg instanceof Http2HeadersFrame frame) {
              CharSequence s = frame.headers().status();
              if (s != null && status < 200) {
                try {
                  int code = Integer.parseInt(s.toString());
                  status = code >= 200 ? code : 0;
                } catch (NumberFormatException e) {
                  fail();
                  return;
                }
              }
              end = frame.isEndStream();
            } else if (msg instanceof Http2DataFrame frame) {
              if (status >= 200 && !append(frame.content())) {
                return;
              }
              end = frame.isEndStream();
            } else if (msg instanceof Http2ResetFrame) {
              fail();
              return;
            }
            if (end) {
              ctx.close();
              if (status >= 200) {
                complete();
              } else {
                fail();
              }
            }
          } finally {
            ReferenceCountUtil.release(msg);
          }
        }
      }).open().addListener(f -> {
        if (!f.isSuccess()) {
          fail();
          return;
        }
        ((Http2StreamChannel) f.getNow()).writeAndFlush(new DefaultHttp2HeadersFrame(headers, true));
      });
    }

    /** Adds a part of the body; false (and the poll failed, the connection closed) past the limit. */
    private boolean append(ByteBuf part) {
      if (callback == null || part.readableBytes() == 0) {
        return true;
      }
      if (body == null) {
        body = channel.alloc().heapBuffer(Math.min(MAX_BODY_BYTES, Math.max(256, part.readableBytes())));
      }
      if (body.readableBytes() + part.readableBytes() > MAX_BODY_BYTES) {
        fail();
        return false;
      }
      body.writeBytes(part);
      return true;
    }

    private void complete() {
      HostMetricsPoller.Callback cb = callback;
      callback = null;
      String text = body == null ? "" : body.toString(StandardCharsets.UTF_8);
      releaseBody();
      if (cb != null) {
        cb.answered(status, text);
      }
    }

    /** The poll under way (if any) failed; the connection is closed and forgotten. */
    void fail() {
      HostMetricsPoller.Callback cb = callback;
      callback = null;
      releaseBody();
      if (connections.get(host) == this) {
        connections.remove(host);
      }
      channel.close();
      if (cb != null) {
        cb.failed();
      }
    }

    private void releaseBody() {
      if (body != null) {
        body.release();
        body = null;
      }
    }
  }
}
