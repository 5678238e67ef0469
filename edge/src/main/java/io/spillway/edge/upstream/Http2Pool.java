package io.spillway.edge.upstream;

import io.netty.channel.Channel;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import io.netty.util.ReferenceCountUtil;
import io.spillway.edge.http2.EdgeHttp2ConnectionHandler;
import java.util.ArrayList;
import java.util.List;

/**
 * HTTP/2 connections (prior knowledge, over cleartext or the cluster's TLS) to one host from one worker. Requests become
 * streams on the first connection with room under the peer's SETTINGS_MAX_CONCURRENT_STREAMS; a
 * new connection is opened (within {@code max_connections}, which the cluster's pools share: see
 * {@link ConnectionBudget}) when none has room. A connection that received GOAWAY takes no new
 * streams and closes once its streams are done; one with no stream for the cluster's idle timeout
 * is closed, and one whose last stream ended while another pool waits for budget is closed for it.
 */
final class Http2Pool extends HostPool {
  private static final org.slf4j.Logger log = org.slf4j.LoggerFactory.getLogger(Http2Pool.class);

  private final List<Connection> connections = new ArrayList<>();
  /** Connections with no stream open or opening. */
  private int idleConnections;
  private int connecting;
  private volatile boolean draining;

  Http2Pool(Cluster cluster, Host host, Worker worker) {
    super(cluster, host, worker);
  }

  @Override
  public Pending newStream(StreamCallbacks callbacks, ConnectionShare.Holding holding) {
    Connection conn = available();
    if (conn != null) {
      open(conn, callbacks);
      return Pending.NONE;
    }
    Waiter w = enqueue(callbacks, holding);
    if (w == null) {
      return Pending.NONE;
    }
    if (connecting == 0) {
      connect();
    }
    return w;
  }

  private Connection available() {
    for (int i = 0; i < connections.size(); i++) {
      Connection c = connections.get(i);
      if (c.hasRoom()) {
        return c;
      }
    }
    return null;
  }

  private void open(Connection conn, StreamCallbacks callbacks) {
    conn.setIdle(false);
    conn.streamsOpened++;
    int max = cluster.config().maxRequestsPerConnection();
    if (max > 0 && conn.streamsOpened >= max) {
      // max_requests_per_connection: no new streams; the connection closes when its streams end.
      conn.retire();
    }
    callbacks.onStreamReady(conn.client.newStream());
  }

  private void connect() {
    if (draining) {
      return;
    }
    if (!cluster.allowNewConnection(worker)) {
      cluster.stats().upstreamCxOverflow.inc();
      Waiter w;
      while ((w = pollWaiter()) != null) {
        w.callbacks.onStreamFailure(StreamCallbacks.PoolFailure.OVERFLOW, "new connection shed by the overload manager");
      }
      return;
    }
    if (!cluster.limits().tryAcquireConnection()) {
      cluster.stats().upstreamCxOverflow.inc();
      if (!seat.spent()) {
        return; // waiters are served when a connection closes here or budget is freed for this pool
      }
    }
    connecting++;
    long started = System.nanoTime();
    Connection conn = new Connection();
    connect(pipeline -> {
      cluster.http2Codecs().addTo(pipeline, "h2", conn.codec);
      conn.client.attach(conn.codec, pipeline.context(conn.codec));
      pipeline.addLast("lifecycle", conn);
    }).addListener(done -> {
      connecting--;
      if (done.isSuccess()) {
        cluster.stats().upstreamCxTotal.inc();
        cluster.stats().upstreamCxHttp2Total.inc();
        cluster.stats().upstreamCxActive.inc();
        cluster.stats().upstreamCxConnectMs.record((System.nanoTime() - started) / 1_000_000);
        host.cxTotal.add(1);
        host.cxActive.incrementAndGet();
        conn.channel = (Channel) done.getNow();
        connections.add(conn);
        serveWaiters();
        conn.connected();
      } else {
        cluster.limits().releaseConnection();
        countConnectFailure(done.cause());
        // Every waiter was counting on this connection.
        Waiter w;
        while ((w = pollWaiter()) != null) {
          cluster.stats().upstreamRqPendingFailureEject.inc();
          w.callbacks.onStreamFailure(failureOf(done.cause()), String.valueOf(done.cause().getMessage()));
        }
        seat.released(null, false);
      }
    });
  }

  private void serveWaiters() {
    while (!waiting.isEmpty()) {
      Connection c = available();
      if (c == null) {
        if (connecting == 0) {
          connect();
        }
        return;
      }
      open(c, pollWaiter().callbacks);
    }
  }

  @Override
  int connectionsNeeded() {
    return draining || waiting.isEmpty() || connecting > 0 ? 0 : 1;
  }

  @Override
  void connectWaiters() {
    serveWaiters();
  }

  @Override
  void closeIdleForOthers() {
    if (draining) {
      return;
    }
    for (int i = 0; i < connections.size(); i++) {
      Connection c = connections.get(i);
      if (c.idle && !c.goingAway) {
        ConnectionBudget.Seat claimant = seat.nextClaimant();
        if (claimant == null) {
          return;
        }
        c.closeFor(claimant);
      }
    }
  }

  @Override
  void drain() {
    draining = true;
    seat.leave();
    worker.loop().execute(() -> {
      for (Connection c : new ArrayList<>(connections)) {
        c.goingAway = true;
        c.channel.close();
      }
    });
  }

  /**
   * Lifecycle of one HTTP/2 connection, after its codec: GOAWAY and close remove it from the pool.
   * Its streams are plain objects of {@link Http2ClientConnection}, the codec's frame listener.
   */
  private final class Connection extends ChannelInboundHandlerAdapter {
    final Http2ClientConnection client = new Http2ClientConnection(host, cluster, this::onRoomChanged);
    final EdgeHttp2ConnectionHandler codec = cluster.http2Codecs().newCodec(client);
    Channel channel;
    int streamsOpened;
    boolean goingAway;
    /** No stream open or opening (counted in {@link #idleConnections}). */
    boolean idle;
    /** The pool this connection was closed for (its budget goes there), or null. */
    ConnectionBudget.Seat closedFor;
    io.netty.util.concurrent.ScheduledFuture<?> idleTimer;
    private ChannelHandlerContext ctx;
    private boolean closed;

    /** Connected and in the pool: with no waiter to serve, it is unused from the start. */
    void connected() {
      if (client.reserved() == 0 && ctx != null) {
        armIdle(ctx, true);
      }
    }

    /** Takes no new streams; closes once the last open one ends. */
    void retire() {
      goingAway = true;
    }

    void setIdle(boolean now) {
      if (idle != now) {
        idle = now;
        idleConnections += now ? 1 : -1;
        seat.idle(idleConnections);
      }
    }

    /** Closes this connection, which has no stream, so that {@code claimant} can open one. */
    void closeFor(ConnectionBudget.Seat claimant) {
      closedFor = claimant;
      goingAway = true;
      setIdle(false);
      if (idleTimer != null) {
        idleTimer.cancel(false);
        idleTimer = null;
      }
      cluster.stats().upstreamCxReclaimed.inc();
      channel.close();
    }

    @Override
    public void handlerAdded(ChannelHandlerContext ctx) {
      this.ctx = ctx;
      codec.connection().addListener(new io.netty.handler.codec.http2.Http2ConnectionAdapter() {
        @Override
        public void onStreamActive(io.netty.handler.codec.http2.Http2Stream stream) {
          setIdle(false);
          if (idleTimer != null) {
            idleTimer.cancel(false);
            idleTimer = null;
          }
        }

        @Override
        public void onStreamClosed(io.netty.handler.codec.http2.Http2Stream stream) {
          ctx.executor().execute(() -> {
            if (!waiting.isEmpty() && !closed) {
              serveWaiters(); // the stream's room goes to the oldest waiter
            }
            armIdle(ctx, true);
          });
        }
      });
      armIdle(ctx, false);
    }

    /**
     * A connection with no open stream: closed when going away, else closed for a pool waiting for
     * budget once its last stream ended, else the cluster's idle timeout closes it if it has had
     * no open stream for that long.
     */
    /** A stream handed out was given back unstarted, or the server sent GOAWAY. */
    private void onRoomChanged() {
      if (client.goAwayReceived()) {
        goingAway = true;
      }
      if (ctx != null) {
        if (!waiting.isEmpty() && !closed) {
          serveWaiters();
        }
        armIdle(ctx, true);
      }
    }

    private void armIdle(ChannelHandlerContext ctx, boolean mayGiveAway) {
      if (closed) {
        return;
      }
      boolean unused = codec.connection().numActiveStreams() == 0 && client.reserved() == 0;
      if (goingAway && unused) {
        ctx.close();
        return;
      }
      if (!unused) {
        return;
      }
      if (mayGiveAway && !draining && channel != null) {
        ConnectionBudget.Seat claimant = seat.nextClaimant();
        if (claimant != null) {
          closeFor(claimant);
          return;
        }
      }
      if (channel != null) { // connected: in the pool
        setIdle(true);
      }
      long timeout = cluster.config().idleTimeout().toNanos();
      if (timeout <= 0 || idleTimer != null) {
        return;
      }
      idleTimer = ctx.executor().schedule(() -> {
        idleTimer = null;
        if (codec.connection().numActiveStreams() == 0 && client.reserved() == 0) {
          goingAway = true;
          cluster.stats().upstreamCxIdleTimeout.inc();
          ctx.close(); // the codec sends GOAWAY(NO_ERROR) first
        }
      }, timeout, java.util.concurrent.TimeUnit.NANOSECONDS);
    }

    boolean hasRoom() {
      if (goingAway || channel == null || !channel.isActive()) {
        return false;
      }
      var local = codec.connection().local();
      // The server's SETTINGS_MAX_CONCURRENT_STREAMS, capped by the cluster's max_concurrent_streams.
      int max = Math.min(local.maxActiveStreams(), cluster.config().http2().maxConcurrentStreams());
      return local.numActiveStreams() + client.reserved() < max && local.canOpenStream();
    }

    @Override
    public void channelRead(ChannelHandlerContext ctx, Object msg) {
      ReferenceCountUtil.release(msg); // the codec passes nothing up: frames go to the listener
    }

    @Override
    public void channelReadComplete(ChannelHandlerContext ctx) {
      client.onReadComplete();
      ctx.fireChannelReadComplete();
    }

    @Override
    public void channelInactive(ChannelHandlerContext ctx) {
      closed = true;
      setIdle(false);
      if (connections.remove(this)) {
        cluster.limits().releaseConnection();
        cluster.stats().upstreamCxActive.dec();
        cluster.stats().upstreamCxDestroy.inc();
        host.cxActive.decrementAndGet();
        seat.released(closedFor, closedFor == null && connectionsNeeded() > 0);
      }
      if (!waiting.isEmpty()) {
        serveWaiters();
      }
    }

    @Override
    public void exceptionCaught(ChannelHandlerContext ctx, Throwable cause) {
      log.debug("upstream HTTP/2 connection error on {}: {}", ctx.channel(), cause.toString());
      ctx.close();
    }
  }
}
