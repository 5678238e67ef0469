package io.spillway.edge.upstream;

import io.netty.handler.codec.http.HttpClientCodec;
import io.netty.handler.codec.http.HttpDecoderConfig;
import java.util.ArrayDeque;

/**
 * HTTP/1.1 connections to one host from one worker: idle connections are reused (most recently
 * used first, so surplus connections age out), requests wait in a pending queue bounded by the
 * cluster's {@code max_pending_requests}, new connections are bounded by {@code max_connections},
 * which the cluster's pools share ({@link ConnectionBudget}: an idle connection is closed for a
 * pool that waits for budget).
 */
final class Http1Pool extends HostPool {

  private final ArrayDeque<Http1Connection> idle = new ArrayDeque<>();
  private int connecting;
  private volatile boolean draining;
  private io.netty.util.concurrent.ScheduledFuture<?> idleSweep;

  Http1Pool(Cluster cluster, Host host, Worker worker) {
    super(cluster, host, worker);
  }

  @Override
  public Pending newStream(StreamCallbacks callbacks, ConnectionShare.Holding holding) {
    Http1Connection conn = pollIdle();
    if (conn != null) {
      conn.lend();
      callbacks.onStreamReady(conn);
      return Pending.NONE;
    }
    Waiter waiter = enqueue(callbacks, holding);
    if (waiter == null) {
      return Pending.NONE;
    }
    if (connecting < waiting.size()) {
      connect();
    }
    return waiter;
  }

  private Http1Connection pollIdle() {
    Http1Connection conn;
    while ((conn = idle.pollFirst()) != null) {
      if (conn.isUsable()) {
        seat.idle(idle.size());
        return conn;
      }
    }
    seat.idle(0);
    return null;
  }

  private void connect() {
    if (draining) {
      return;
    }
    if (!cluster.allowNewConnection(worker)) {
      cluster.stats().upstreamCxOverflow.inc();
      Waiter w = pollWaiter();
      if (w != null) {
        w.callbacks.onStreamFailure(StreamCallbacks.PoolFailure.OVERFLOW, "new connection shed by the overload manager");
      }
      return;
    }
    if (!cluster.limits().tryAcquireConnection()) {
      cluster.stats().upstreamCxOverflow.inc();
      if (!seat.spent()) {
        return; // waiters are served when a connection is released here or budget is freed for this pool
      }
    }
    connecting++;
    long started = System.nanoTime();
    Http1Connection conn = new Http1Connection(this);
    connect(pipeline -> {
      pipeline.addLast("codec", new HttpClientCodec(new HttpDecoderConfig()
          .setMaxInitialLineLength(8192)
          .setMaxHeaderSize(96 * 1024)
          .setMaxChunkSize(64 * 1024), false, false));
      pipeline.addLast("upstream", conn);
    }).addListener(done -> {
      connecting--;
      if (done.isSuccess()) {
        cluster.stats().upstreamCxTotal.inc();
        cluster.stats().upstreamCxHttp1Total.inc();
        cluster.stats().upstreamCxActive.inc();
        cluster.stats().upstreamCxConnectMs.record((System.nanoTime() - started) / 1_000_000);
        host.cxTotal.add(1);
        host.cxActive.incrementAndGet();
        release(conn);
      } else {
        cluster.limits().releaseConnection();
        countConnectFailure(done.cause());
        Waiter w = pollWaiter();
        if (w != null) {
          cluster.stats().upstreamRqPendingFailureEject.inc();
          w.callbacks.onStreamFailure(failureOf(done.cause()), String.valueOf(done.cause().getMessage()));
        }
        boolean needed = connectionsNeeded() > 0;
        seat.released(null, needed);
        if (needed) {
          connect();
        }
      }
    });
  }

  /** A connection is free again: serve the oldest waiter or park it as idle. */
  void release(Http1Connection conn) {
    if (draining || !conn.isUsable()) {
      conn.close();
      return;
    }
    Waiter w = pollWaiter();
    if (w != null) {
      conn.lend();
      w.callbacks.onStreamReady(conn);
    } else {
      ConnectionBudget.Seat claimant = seat.nextClaimant();
      if (claimant != null) {
        closeFor(conn, claimant);
        return;
      }
      conn.parkedAtNanos = System.nanoTime();
      idle.addFirst(conn);
      seat.idle(idle.size());
      scheduleIdleSweep();
    }
  }

  /** Closes a connection this pool has no use for, so that {@code claimant} can open one. */
  private void closeFor(Http1Connection conn, ConnectionBudget.Seat claimant) {
    conn.closedFor = claimant;
    cluster.stats().upstreamCxReclaimed.inc();
    conn.close();
  }

  @Override
  int connectionsNeeded() {
    return draining ? 0 : Math.max(0, waiting.size() - connecting);
  }

  @Override
  void connectWaiters() {
    if (connectionsNeeded() > 0) {
      connect();
    }
  }

  @Override
  void closeIdleForOthers() {
    if (draining) {
      return;
    }
    Http1Connection c;
    while ((c = idle.peekLast()) != null) { // the longest parked first
      ConnectionBudget.Seat claimant = seat.nextClaimant();
      if (claimant == null) {
        break;
      }
      idle.pollLast();
      closeFor(c, claimant);
    }
    seat.idle(idle.size());
  }

  /**
   * Closes connections idle for longer than the cluster's idle timeout. One timer per pool, armed
   * only while connections are parked, instead of one per connection.
   */
  private void scheduleIdleSweep() {
    long timeout = cluster.config().idleTimeout().toNanos();
    if (timeout <= 0 || idleSweep != null) {
      return;
    }
    idleSweep = worker.loop().schedule(this::sweepIdle, timeout, java.util.concurrent.TimeUnit.NANOSECONDS);
  }

  private void sweepIdle() {
    idleSweep = null;
    long timeout = cluster.config().idleTimeout().toNanos();
    long now = System.nanoTime();
    // The deque's tail holds the longest-parked connections (most recently used go first).
    Http1Connection c;
    while ((c = idle.peekLast()) != null && now - c.parkedAtNanos >= timeout) {
      idle.pollLast();
      cluster.stats().upstreamCxIdleTimeout.inc();
      c.close();
    }
    seat.idle(idle.size());
    if (!idle.isEmpty()) {
      long oldest = idle.peekLast().parkedAtNanos;
      idleSweep = worker.loop().schedule(this::sweepIdle, Math.max(1, oldest + timeout - now),
          java.util.concurrent.TimeUnit.NANOSECONDS);
    }
  }

  /**
   * A connection closed: forget it and give its budget to the pool it was closed for, else to
   * this pool's waiters, else to a pool waiting for budget.
   */
  void closed(Http1Connection conn) {
    if (idle.remove(conn)) {
      seat.idle(idle.size());
    }
    cluster.limits().releaseConnection();
    cluster.stats().upstreamCxActive.dec();
    cluster.stats().upstreamCxDestroy.inc();
    host.cxActive.decrementAndGet();
    boolean needed = conn.closedFor == null && connectionsNeeded() > 0;
    seat.released(conn.closedFor, needed);
    if (needed) {
      connect();
    }
  }

  @Override
  void drain() {
    draining = true;
    seat.leave();
    worker.loop().execute(() -> {
      Http1Connection c;
      while ((c = idle.pollFirst()) != null) {
        c.close();
      }
      seat.idle(0);
    });
  }

  Cluster cluster() {
    return cluster;
  }

  Host host() {
    return host;
  }
}
