package io.spillway.edge.upstream;

import io.netty.bootstrap.Bootstrap;
import io.netty.channel.Channel;
import io.netty.channel.ChannelFuture;
import io.netty.channel.ChannelInitializer;
import io.netty.channel.ChannelOption;
import io.netty.channel.ChannelPipeline;
import io.netty.channel.WriteBufferWaterMark;
import io.netty.handler.ssl.SslHandler;
import io.netty.util.concurrent.Future;
import io.netty.util.concurrent.Promise;
import java.util.function.Consumer;

/**
 * One worker's connections to one host. Lives on the worker's loop; all methods must be called
 * there.
 */
public abstract sealed class HostPool permits Http1Pool, Http2Pool {

  /** Handle to cancel a request still waiting for a stream. */
  public interface Pending {
    Pending NONE = () -> {};

    void cancel();
  }

  protected final Cluster cluster;
  protected final Host host;
  protected final Worker worker;
  /** Requests waiting for a connection (HTTP/1) or for a connection with room (HTTP/2), oldest first. */
  protected final java.util.ArrayDeque<Waiter> waiting = new java.util.ArrayDeque<>();
  /** This pool's place in the cluster's shared {@code max_connections}. */
  final ConnectionBudget.Seat seat;

  HostPool(Cluster cluster, Host host, Worker worker) {
    this.cluster = cluster;
    this.host = host;
    this.worker = worker;
    this.seat = cluster.connectionBudget().seat(new BudgetMember(), host);
  }

  /**
   * Asks for a stream: served now, or later when a connection is ready, or refused.
   *
   * @param holding what the request's downstream connection holds of this cluster (its pending
   *     share is checked if the request has to wait), or null
   */
  public abstract Pending newStream(StreamCallbacks callbacks, ConnectionShare.Holding holding);

  /** Stops handing out connections and closes them as they become idle. Thread-safe. */
  abstract void drain();

  /** How many more connections the waiters need than are being opened; 0 while draining. */
  abstract int connectionsNeeded();

  /** Budget was freed for this pool by another one: open what the waiters need. */
  abstract void connectWaiters();

  /** Closes idle connections, each for a pool waiting for budget ({@link ConnectionBudget.Seat#nextClaimant()}). */
  abstract void closeIdleForOthers();

  /** This pool as the cluster's connection budget sees it. */
  private final class BudgetMember implements ConnectionBudget.Member {
    @Override
    public java.util.concurrent.Executor loop() {
      return worker.loop();
    }

    @Override
    public int connectionsNeeded() {
      return HostPool.this.connectionsNeeded();
    }

    @Override
    public void connectWaiters() {
      HostPool.this.connectWaiters();
    }

    @Override
    public void closeIdleForOthers() {
      HostPool.this.closeIdleForOthers();
    }
  }

  /**
   * Queues a request that cannot be served now, within the cluster's {@code max_pending_requests}
   * and its downstream connection's share of it; returns null (having answered OVERFLOW) when
   * either is full.
   */
  protected Waiter enqueue(StreamCallbacks callbacks, ConnectionShare.Holding holding) {
    ResourceLimits.Slot slot = holding == null ? cluster.limits().tryAcquirePending(0) : holding.takePending();
    if (slot != ResourceLimits.Slot.TAKEN) {
      cluster.stats().upstreamRqPendingOverflow.inc();
      if (slot == ResourceLimits.Slot.OVER_SHARE) {
        cluster.stats().upstreamRqShareOverflow.inc();
      }
      callbacks.onStreamFailure(StreamCallbacks.PoolFailure.OVERFLOW, "pending requests overflow");
      return null;
    }
    Waiter w = new Waiter(callbacks, holding);
    waiting.add(w);
    cluster.stats().upstreamRqPendingTotal.inc();
    cluster.stats().upstreamRqPendingActive.inc();
    return w;
  }

  /** The oldest waiter, taken off the queue (its pending slot given back), or null. */
  protected Waiter pollWaiter() {
    Waiter w = waiting.pollFirst();
    if (w != null) {
      w.done();
    }
    return w;
  }

  /** A request waiting for a stream; cancelling it gives back its pending slot. */
  protected final class Waiter implements Pending {
    final StreamCallbacks callbacks;
    private final ConnectionShare.Holding holding;
    private boolean finished;

    Waiter(StreamCallbacks callbacks, ConnectionShare.Holding holding) {
      this.callbacks = callbacks;
      this.holding = holding;
    }

    void done() {
      if (!finished) {
        finished = true;
        if (holding == null) {
          cluster.limits().releasePending();
        } else {
          holding.releasePending();
        }
        cluster.stats().upstreamRqPendingActive.dec();
      }
    }

    @Override
    public void cancel() {
      if (!finished) {
        waiting.remove(this);
        done();
      }
    }
  }

  /** A client bootstrap on this worker's loop with the cluster's connect timeout and buffer limit. */
  protected Bootstrap bootstrap() {
    return bootstrap(cluster, host, worker);
  }

  /** A client bootstrap to {@code host} on {@code worker}'s loop with the cluster's connect timeout and buffer limit. */
  static Bootstrap bootstrap(Cluster cluster, Host host, Worker worker) {
    int limit = Math.max(cluster.config().perConnectionBufferLimitBytes(), 1024);
    return new Bootstrap()
        .group(worker.loop())
        .channelFactory(worker.channelFactory()::get)
        .option(ChannelOption.ALLOCATOR, worker.allocator())
        .option(ChannelOption.TCP_NODELAY, true)
        .option(ChannelOption.CONNECT_TIMEOUT_MILLIS,
            (int) Math.min(Integer.MAX_VALUE, Math.max(1, cluster.config().connectTimeout().toMillis())))
        .option(ChannelOption.WRITE_BUFFER_WATER_MARK, new WriteBufferWaterMark(limit / 2, limit))
        .remoteAddress(host.address());
  }

  /**
   * Opens a connection to the host: TCP, then for a TLS cluster the handshake, and only then the
   * protocol handlers {@code protocol} adds to the pipeline. The future fails when either step
   * does (a failed handshake is a connect failure, response flag UF, as in Envoy, and closes the
   * channel; {@link UpstreamTls} counts it).
   */
  protected Future<Channel> connect(Consumer<ChannelPipeline> protocol) {
    UpstreamTls tls = cluster.tls();
    Promise<Channel> ready = worker.loop().newPromise();
    ChannelFuture connect = bootstrap().handler(new ChannelInitializer<Channel>() {
      @Override
      protected void initChannel(Channel ch) {
        if (tls == null) {
          protocol.accept(ch.pipeline());
        } else {
          ch.pipeline().addLast("tls", tls.newHandler(ch.alloc(), host));
          ch.pipeline().addLast("tls-errors", tls.errorCounter);
        }
      }
    }).connect();
    connect.addListener(done -> {
      if (!done.isSuccess()) {
        ready.tryFailure(done.cause());
        return;
      }
      Channel ch = connect.channel();
      if (tls == null) {
        ready.trySuccess(ch);
        return;
      }
      ch.pipeline().get(SslHandler.class).handshakeFuture().addListener(handshake -> {
        if (handshake.isSuccess()) {
          tls.handshake.inc();
          protocol.accept(ch.pipeline());
          ready.trySuccess(ch);
        } else {
          tls.handshakeFailed(handshake.cause());
          ch.close();
          ready.tryFailure(handshake.cause());
        }
      });
    });
    return ready;
  }

  protected void countConnectFailure(Throwable cause) {
    countConnectFailure(cluster, host, cause);
  }

  static void countConnectFailure(Cluster cluster, Host host, Throwable cause) {
    cluster.stats().upstreamCxConnectFail.inc();
    host.cxConnectFail.add(1);
    if (cause instanceof io.netty.channel.ConnectTimeoutException) {
      cluster.stats().upstreamCxConnectTimeout.inc();
    }
  }

  protected static StreamCallbacks.PoolFailure failureOf(Throwable cause) {
    return cause instanceof io.netty.channel.ConnectTimeoutException
        ? StreamCallbacks.PoolFailure.CONNECT_TIMEOUT
        : StreamCallbacks.PoolFailure.CONNECT_FAILURE;
  }
}
