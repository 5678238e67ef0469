package io.spillway.edge.listener;

import io.netty.bootstrap.ServerBootstrap;
import io.netty.buffer.ByteBufAllocator;
import io.netty.channel.Channel;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInitializer;
import io.netty.channel.ChannelOption;
import io.netty.channel.ChannelPipeline;
import io.netty.channel.EventLoop;
import io.netty.channel.EventLoopGroup;
import io.netty.channel.ServerChannel;
import io.netty.channel.WriteBufferWaterMark;
import io.netty.channel.group.ChannelGroup;
import io.netty.channel.group.DefaultChannelGroup;
import io.netty.handler.ssl.ApplicationProtocolNames;
import io.netty.handler.ssl.ApplicationProtocolNegotiationHandler;
import io.netty.handler.ssl.SslContext;
import io.netty.handler.ssl.SslHandler;
import io.netty.handler.ssl.SslHandshakeCompletionEvent;
import io.netty.handler.ssl.SslHandshakeTimeoutException;
import io.netty.util.AttributeKey;
import io.netty.util.concurrent.GlobalEventExecutor;
import io.spillway.edge.accesslog.AccessLogs;
import io.spillway.edge.config.HttpConnectionManagerConfig.CodecType;
import io.spillway.edge.config.ListenerConfig;
import io.spillway.edge.config.OverloadConfig;
import io.spillway.edge.http.DownstreamEvents;
import io.spillway.edge.http.HttpConnectionManager;
import io.spillway.edge.http.HttpPipelines;
import io.spillway.edge.upstream.Worker;
import java.net.InetSocketAddress;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.function.Supplier;

/**
 * One listener at run time: its bound socket, the initializer every accepted connection goes
 * through (accounting → [TLS inspector] → filter chain choice → TLS → protocol selection → HTTP
 * pipeline, or → TCP proxy), and the set of its open
 * connections for draining. A connection is served by the worker loop it was accepted onto, for
 * its whole life.
 */
public final class Listener {
  static final AttributeKey<Long> ACCEPTED_AT = AttributeKey.valueOf("spillway.acceptedAt");

  private final ListenerStats stats;
  private final Map<EventLoop, Worker> workers;
  private final ListenerOverload overload;
  /** Open connections on every worker, for the runtime's per-listener connection limit. */
  private final java.util.concurrent.atomic.AtomicLong openConnections = new java.util.concurrent.atomic.AtomicLong();
  /** What new connections get; swapped whole by {@link #replace}. */
  private volatile Generation current;
  private final ChannelGroup connections = new DefaultChannelGroup(GlobalEventExecutor.INSTANCE);
  private Channel serverChannel;

  /**
   * @param ssl the TLS context built from the listener's DownstreamTlsContext, or null for cleartext
   */
  public Listener(ListenerConfig config, HttpConnectionManager hcm, ListenerStats stats, Map<EventLoop, Worker> workers,
      SslContext ssl, ListenerOverload overload) {
    this(config, hcm, stats, workers, ssl, overload, AccessLogs.NONE);
  }

  /**
   * @param ssl the TLS context built from the listener's DownstreamTlsContext, or null for cleartext
   * @param accessLogs the listener's own {@code access_log} (one line per connection), compiled
   */
  public Listener(ListenerConfig config, HttpConnectionManager hcm, ListenerStats stats, Map<EventLoop, Worker> workers,
      SslContext ssl, ListenerOverload overload, AccessLogs accessLogs) {
    this(config, hcm, ListenerChains.http(config, ssl), stats, workers, overload, accessLogs);
  }

  /**
   * @param hcm the connection manager of the HTTP chains, null when every chain is a TCP proxy
   * @param chains the filter chains built for run time
   * @param accessLogs the listener's own {@code access_log} (one line per connection), compiled
   */
  public Listener(ListenerConfig config, HttpConnectionManager hcm, ListenerChains chains, ListenerStats stats,
      Map<EventLoop, Worker> workers, ListenerOverload overload, AccessLogs accessLogs) {
    this.stats = stats;
    this.workers = Map.copyOf(workers);
    this.overload = overload;
    this.current = generation(config, hcm, chains, accessLogs);
  }

  private Generation generation(ListenerConfig config, HttpConnectionManager hcm, ListenerChains chains,
      AccessLogs accessLogs) {
    return new Generation(config, hcm, chains, new ConnectionTracker(stats, hcm == null ? null : hcm.stats(), overload,
        config.ignoreGlobalConnLimit(), this.workers, accessLogs, config.name(), openConnections));
  }

  /**
   * The settings a connection is accepted with. Connections keep the generation they were accepted
   * with for their whole life; a {@link #replace} affects only the connections accepted after it.
   */
  private record Generation(ListenerConfig config, HttpConnectionManager hcm, ListenerChains chains,
      ConnectionTracker tracker) {}

  public ListenerConfig config() {
    return current.config();
  }

  public HttpConnectionManager hcm() {
    return current.hcm();
  }

  /**
   * Changes the listener in place (an LDS update that keeps the address): connections accepted
   * from now on use the new filter chain; the connections already open are asked to drain, so
   * their requests in flight finish on the configuration they started with.
   *
   * @param ssl the new TLS context, or null for cleartext
   */
  public void replace(ListenerConfig config, HttpConnectionManager hcm, SslContext ssl) {
    replace(config, hcm, ssl, AccessLogs.NONE);
  }

  /** {@link #replace(ListenerConfig, HttpConnectionManager, SslContext)} with the new listener's access logs. */
  public void replace(ListenerConfig config, HttpConnectionManager hcm, SslContext ssl, AccessLogs accessLogs) {
    replace(config, hcm, ListenerChains.http(config, ssl), accessLogs);
  }

  /** {@link #replace(ListenerConfig, HttpConnectionManager, SslContext)} with the new listener's chains. */
  public void replace(ListenerConfig config, HttpConnectionManager hcm, ListenerChains chains, AccessLogs accessLogs) {
    if (!config.address().equals(current.config().address())) {
      throw new IllegalArgumentException("replace keeps the address; bind a new listener to move it");
    }
    List<Channel> open = new ArrayList<>(connections);
    current = generation(config, hcm, chains, accessLogs);
    for (Channel ch : open) {
      ch.pipeline().fireUserEventTriggered(DownstreamEvents.Drain.INSTANCE);
    }
  }

  /** The bound address (the actual port when the config asked for port 0). */
  public InetSocketAddress localAddress() {
    return serverChannel == null ? null : (InetSocketAddress) serverChannel.localAddress();
  }

  public int connectionCount() {
    return connections.size();
  }

  /** Envoy's stats name of a listener address: "0.0.0.0_10000". */
  public static String statName(ListenerConfig config) {
    return config.address().host() + "_" + config.address().port();
  }

  /** Binds the socket; blocking, called on the main thread at start-up. */
  public void bind(EventLoopGroup acceptor, EventLoopGroup workerGroup,
      Supplier<? extends ServerChannel> channelFactory, ByteBufAllocator allocator) throws InterruptedException {
    ListenerConfig config = current.config();
    serverChannel = bootstrap(acceptor, workerGroup, channelFactory, allocator)
        .bind(config.address().host(), config.address().port()).sync().channel();
  }

  /**
   * Accepts on a socket that is already bound and listening (taken over from the previous edge in
   * a hot restart) instead of binding one; blocking, on the main thread at start-up.
   */
  public void adopt(EventLoopGroup acceptor, EventLoopGroup workerGroup, ServerChannel listening,
      ByteBufAllocator allocator) throws InterruptedException {
    serverChannel = bootstrap(acceptor, workerGroup, () -> listening, allocator).register().sync().channel();
  }

  /**
   * The listening socket's channel, for handing it to the next edge in a hot restart; null before
   * {@link #bind}.
   */
  public Channel serverChannel() {
    return serverChannel;
  }

  private ServerBootstrap bootstrap(EventLoopGroup acceptor, EventLoopGroup workerGroup,
      Supplier<? extends ServerChannel> channelFactory, ByteBufAllocator allocator) {
    int limit = Math.max(current.config().perConnectionBufferLimitBytes(), 1024);
    return new ServerBootstrap()
        .group(acceptor, workerGroup)
        .channelFactory(channelFactory::get)
        .option(ChannelOption.SO_BACKLOG, 1024)
        .option(ChannelOption.SO_REUSEADDR, true)
        .option(ChannelOption.ALLOCATOR, allocator)
        .childOption(ChannelOption.ALLOCATOR, allocator)
        .childOption(ChannelOption.TCP_NODELAY, true)
        .childOption(ChannelOption.WRITE_BUFFER_WATER_MARK, new WriteBufferWaterMark(limit / 2, limit))
        .childHandler(new ChannelInitializer<>() {
          @Override
          protected void initChannel(Channel ch) {
            initConnection(ch);
          }
        });
  }

  private void initConnection(Channel ch) {
    connections.add(ch);
    Generation g = current;
    ChannelPipeline p = ch.pipeline();
    p.addLast("accounting", g.tracker());
    ListenerConfig.Inspection inspection = g.config().inspection();
    if (inspection.tlsInspector()) {
      p.addLast("tls-inspector", new TlsInspector((ctx, found) -> chooseChain(ctx.channel(), g, found),
          g.chains().inspectorStats(), inspection.timeout().toMillis(), inspection.continueOnTimeout()));
      return;
    }
    chooseChain(ch, g, TlsInspector.Result.RAW);
  }

  /**
   * Picks the connection's filter chain with what is known of it (addresses; SNI and ALPN when the
   * TLS inspector ran) and installs it; no chain → closed and counted.
   */
  private void chooseChain(Channel ch, Generation g, TlsInspector.Result found) {
    InetSocketAddress local = ch.localAddress() instanceof InetSocketAddress a ? a : null;
    InetSocketAddress remote = ch.remoteAddress() instanceof InetSocketAddress a ? a : null;
    // Envoy: a connection no listener filter recognised is "raw_buffer".
    FilterChainSelector.Facts facts = new FilterChainSelector.Facts(
        local == null ? 0 : local.getPort(), local == null ? null : local.getAddress().getAddress(),
        found.serverName(), found.tls() ? "tls" : "raw_buffer", found.applicationProtocols(),
        remote == null ? null : remote.getAddress().getAddress(), remote == null ? 0 : remote.getPort());
    int index = g.chains().selector().select(facts);
    if (index == FilterChainSelector.NO_MATCH) {
      stats.noFilterChainMatch.inc();
      ch.close();
      return;
    }
    ListenerChains.Chain chain = g.chains().chain(index);
    Worker worker = workers.get(ch.eventLoop());
    ChannelPipeline p = ch.pipeline();
    SslContext ssl = chain.ssl();
    SslHandler tls = ssl == null ? null : ssl.newHandler(ch.alloc());
    if (tls != null) {
      // transport_socket_connect_timeout, scaled by reduce_timeouts (TRANSPORT_SOCKET_CONNECT) as
      // it stands when the connection is accepted; zero = no limit.
      Duration handshake = chain.config().tls().map(ListenerConfig.TlsContext::handshakeTimeout)
          .orElse(ListenerConfig.TlsContext.DEFAULT_HANDSHAKE_TIMEOUT);
      // A listener of TCP proxy chains only has no connection manager to scale with: unscaled.
      Duration scaled = g.hcm() == null ? handshake
          : g.hcm().overload().scaled(OverloadConfig.TimerType.TRANSPORT_SOCKET_CONNECT, handshake);
      tls.setHandshakeTimeoutMillis(handshake.isZero() ? 0 : Math.max(1, scaled.toMillis()));
      p.addLast("tls", tls);
    }
    if (chain.tcpProxy() != null) {
      if (tls == null) {
        p.addLast("tcp-proxy", chain.tcpProxy().newSession(worker));
      } else {
        p.addLast("tls-done", new TlsHandshakeWaiter(ctx -> ctx.pipeline().addLast("tcp-proxy",
            chain.tcpProxy().newSession(worker)), stats));
      }
      return;
    }
    HttpConnectionManager hcm = g.hcm();
    g.tracker().httpChosen(ch);
    if (tls != null) {
      hcm.stats().downstreamCxSslTotal.inc();
      // Without ALPN (or with a client that offers nothing we share), the codec decides.
      String fallback = g.config().hcm().codecType() == CodecType.HTTP2
          ? ApplicationProtocolNames.HTTP_2 : ApplicationProtocolNames.HTTP_1_1;
      p.addLast("alpn", new ApplicationProtocolNegotiationHandler(fallback) {
        @Override
        protected void configurePipeline(ChannelHandlerContext ctx, String protocol) {
          install(ctx.pipeline(), ApplicationProtocolNames.HTTP_2.equals(protocol), worker, hcm);
        }

        @Override
        protected void handshakeFailure(ChannelHandlerContext ctx, Throwable cause) {
          stats.sslHandshakeError.inc();
          ctx.close();
        }

        @Override
        public void userEventTriggered(ChannelHandlerContext ctx, Object evt) throws Exception {
          // A handshake timeout reaches the pipeline only as this event (the SslHandler closes).
          if (evt instanceof SslHandshakeCompletionEvent done && done.cause() instanceof SslHandshakeTimeoutException) {
            stats.transportSocketConnectTimeout.inc();
          }
          super.userEventTriggered(ctx, evt);
        }
      });
      return;
    }
    switch (g.config().hcm().codecType()) {
      case HTTP1 -> install(p, false, worker, hcm);
      case HTTP2 -> install(p, true, worker, hcm);
      case AUTO -> p.addLast("sniff", new ProtocolSniffer(new ProtocolSniffer.Choice() {
        @Override
        public void http1(ChannelHandlerContext ctx) {
          install(ctx.pipeline(), false, worker, hcm);
        }

        @Override
        public void http2(ChannelHandlerContext ctx) {
          install(ctx.pipeline(), true, worker, hcm);
        }
      }));
    }
  }

  private void install(ChannelPipeline p, boolean http2, Worker worker, HttpConnectionManager hcm) {
    if (overload != null && worker != null
        && overload.codecCreation().shouldShed(overload.manager().state(), worker.random())) {
      p.channel().close();
      return;
    }
    if (http2) {
      HttpPipelines.configureHttp2(p, hcm, worker);
    } else {
      HttpPipelines.configureHttp1(p, hcm, worker);
    }
  }

  /**
   * Pauses (true) or resumes (false) accepting without closing the socket: the overload manager's
   * stop_accepting_connections. Pending connections wait in the kernel's backlog.
   */
  public void pauseAccepting(boolean paused) {
    Channel c = serverChannel;
    if (c != null && c.isOpen()) {
      c.config().setAutoRead(!paused);
    }
  }

  /** Stops accepting: closes the listening socket. Open connections are not touched. */
  public void stopAccepting() {
    if (serverChannel != null) {
      serverChannel.close().syncUninterruptibly();
    }
  }

  /** Asks every open connection to drain: HTTP/1 closes after its response, HTTP/2 sends GOAWAY. */
  public void drainConnections() {
    for (Channel ch : new ArrayList<>(connections)) {
      ch.pipeline().fireUserEventTriggered(DownstreamEvents.Drain.INSTANCE);
    }
  }

  /** Sends an event to every open connection (on each connection's own loop). */
  public void signalConnections(Object event) {
    for (Channel ch : new ArrayList<>(connections)) {
      ch.pipeline().fireUserEventTriggered(event);
    }
  }

  /** Closes every connection still open. */
  public void closeConnections() {
    connections.close().awaitUninterruptibly();
  }
}
