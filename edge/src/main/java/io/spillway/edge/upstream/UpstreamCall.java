package io.spillway.edge.upstream;

import io.netty.buffer.ByteBuf;
import io.netty.handler.codec.http.HttpHeaders;
import io.spillway.edge.guard.Outcome;
import io.spillway.edge.guard.PeerGuard;
import io.spillway.edge.guard.Permit;
import io.spillway.edge.guard.QueueCallback;
import io.spillway.edge.guard.Refusal;
import io.spillway.edge.guard.Ticket;
import io.spillway.edge.http.message.ResponseHeaders;
import java.util.OptionalInt;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;

/**
 * One call to a cluster (Envoy's upstream request, the part every caller shares): the peer's
 * outbound guard (admitted, queued or refused), a host from the load balancer (avoiding the one
 * that just failed), the cluster's request slot (within the downstream connection's share, see
 * {@link ResourceLimits}), a stream from the host's pool on the caller's worker, and the response
 * relayed to the caller. Whatever it took it gives back exactly once,
 * however the call ends: the guard's permit with the call's {@link Outcome}, the request slot, the
 * host's active count, the caller's timers. The router makes one per try; ext_authz one per check.
 *
 * <p>It reports what it saw of the host to the host's {@link OutlierMonitor} (a stream had or
 * not, the response status, a reset before the response) and passes a response's
 * {@code x-envoy-immediate-health-check-fail} to the cluster's health checker.
 */
public final class UpstreamCall implements StreamCallbacks, UpstreamResponseListener, QueueCallback {

  /** What the caller hears. Every method is called on the worker's loop, only while the call has not ended. */
  public interface Listener {
    /** The stream is there: write the request. */
    void onCallReady(UpstreamCall call);

    /** The guard refused the call (response flag GR); nothing was sent. */
    void onCallRefused(UpstreamCall call, Refusal reason);

    /** No healthy host (UH), or the cluster's request circuit breaker is full (UO); nothing was sent. */
    void onCallUnavailable(UpstreamCall call, boolean noHost);

    /** The pool could not give a stream. */
    void onCallFailed(UpstreamCall call, PoolFailure failure, String detail);

    void onResponseHeaders(UpstreamCall call, ResponseHeaders headers, boolean endStream);

    /** The callee owns the data. */
    void onResponseData(UpstreamCall call, ByteBuf data, boolean endStream);

    void onResponseTrailers(UpstreamCall call, HttpHeaders trailers);

    /** The stream ended before the response did. */
    void onCallReset(UpstreamCall call, String reason);

    /**
     * The guard's request timeout (enforce) passed before the response headers: the call has been
     * cancelled, counted as a timeout against the peer.
     */
    void onCallTimedOut(UpstreamCall call);

    default void onReadComplete(UpstreamCall call) {}

    default void onWritabilityChanged(UpstreamCall call, boolean writable) {}
  }

  private final Cluster cluster;
  private final PeerGuard guard;
  private final Worker worker;
  private final Listener listener;
  private final ConnectionShare share;
  private ConnectionShare.Holding holding;
  private Host avoid;
  /** The request's hash (the route's hash_policy) for RING_HASH and MAGLEV, when it has one. */
  private boolean hashed;
  private long hash;
  private Host host;
  private Permit permit;
  private Ticket ticket;
  private HostPool.Pending pending = HostPool.Pending.NONE;
  private UpstreamStream stream;
  private boolean slotHeld;
  private boolean ended;
  private boolean responseStarted;
  private Outcome outcome = Outcome.ABANDONED;
  private ScheduledFuture<?> guardTimer;
  private ScheduledFuture<?> timer1;
  private ScheduledFuture<?> timer2;
  /** A CONNECT the edge terminates: a TCP connection of its own instead of a stream from the host's pool. */
  private boolean terminateConnect;
  /** System.nanoTime when the stream was handed out (x-envoy-upstream-service-time, upstream_rq_time). */
  private long readyNanos;

  /** A call not made for a downstream connection's request: no share rule applies. */
  public UpstreamCall(Cluster cluster, PeerGuard guard, Worker worker, Listener listener) {
    this(cluster, guard, worker, listener, null);
  }

  /**
   * @param guard the peer's outbound guard, or null when the cluster has none
   * @param share what the request's downstream connection holds of the clusters' budgets, or
   *     null when the call is not bound by a connection's share
   */
  public UpstreamCall(Cluster cluster, PeerGuard guard, Worker worker, Listener listener, ConnectionShare share) {
    this.cluster = cluster;
    this.guard = guard;
    this.worker = worker;
    this.listener = listener;
    this.share = share;
  }

  /** Sets the request's hash, which RING_HASH and MAGLEV clusters pick the host by; call before {@link #start}. */
  public void hash(long requestHash) {
    this.hashed = true;
    this.hash = requestHash;
  }

  /**
   * Makes the call a CONNECT the edge terminates (a route's {@code connect_config}): its stream is
   * a TCP connection to the host ({@link TcpUpstream}); call before {@link #start}.
   */
  public void terminateConnect() {
    this.terminateConnect = true;
  }

  /** Starts the call; {@code avoid} is a host to steer clear of when there are others (the last failed one), or null. */
  public void start(Host avoid) {
    this.avoid = avoid;
    if (guard == null) {
      admitted(null);
      return;
    }
    switch (guard.tryAcquire(worker.guardLoop(), this)) {
      case Permit p -> admitted(p);
      case Refusal r -> refused(r);
      case Ticket t -> ticket = t;
    }
  }

  public Cluster cluster() {
    return cluster;
  }

  /** The host picked, or null before (or without) one. */
  public Host host() {
    return host;
  }

  /** The stream, once the pool has handed one out. */
  public UpstreamStream stream() {
    return stream;
  }

  public long readyNanos() {
    return readyNanos;
  }

  public boolean ended() {
    return ended;
  }

  /** What the guard is told when the call ends (the default: abandoned). */
  public void setOutcome(Outcome outcome) {
    this.outcome = outcome;
  }

  /** A timer of the caller's, cancelled when the call ends (at most two). */
  public void cancelOnEnd(ScheduledFuture<?> timer) {
    if (timer1 == null) {
      timer1 = timer;
    } else {
      timer2 = timer;
    }
  }

  /** Cancels the caller's timers now (the response headers arrived, say). */
  public void cancelTimers() {
    if (timer1 != null) {
      timer1.cancel(false);
      timer1 = null;
    }
    if (timer2 != null) {
      timer2.cancel(false);
      timer2 = null;
    }
  }

  // ---- guard and host ------------------------------------------------------------------------

  @Override
  public void onAdmitted(Permit admitted) {
    ticket = null;
    if (ended) {
      admitted.release(Outcome.ABANDONED);
    } else {
      admitted(admitted);
    }
  }

  @Override
  public void onRefused(Refusal reason) {
    ticket = null;
    if (!ended) {
      refused(reason);
    }
  }

  private void refused(Refusal reason) {
    ended = true;
    listener.onCallRefused(this, reason);
  }

  private void admitted(Permit admitted) {
    permit = admitted;
    Host h = cluster.pickHost(worker, hashed, hash, 0);
    if (h != null && h == avoid && cluster.hosts().hosts().size() > 1) {
      for (int i = 1; i <= 3 && h == avoid; i++) {
        h = cluster.pickHost(worker, hashed, hash, i);
      }
    }
    if (h == null) {
      cluster.stats().upstreamCxNoneHealthy.inc();
      end(false);
      listener.onCallUnavailable(this, true);
      return;
    }
    holding = share == null ? null : share.of(cluster);
    ResourceLimits.Slot slot = holding == null ? cluster.limits().tryAcquireRequest(0) : holding.takeRequest();
    if (slot != ResourceLimits.Slot.TAKEN) {
      cluster.stats().upstreamRqPendingOverflow.inc();
      if (slot == ResourceLimits.Slot.OVER_SHARE) {
        cluster.stats().upstreamRqShareOverflow.inc();
      }
      end(false);
      listener.onCallUnavailable(this, false);
      return;
    }
    host = h;
    slotHeld = true;
    OptionalInt timeout = admitted == null ? OptionalInt.empty() : guard.requestTimeoutMillis();
    if (timeout.isPresent()) {
      guardTimer = worker.loop().schedule(this::onGuardTimeout, timeout.getAsInt(), TimeUnit.MILLISECONDS);
    }
    cluster.stats().upstreamRqTotal.inc();
    cluster.stats().upstreamRqActive.inc();
    h.requestStarted();
    HostPool.Pending p = terminateConnect ? TcpUpstream.open(cluster, h, worker, this)
        : cluster.pool(h, worker).newStream(this, holding);
    if (!ended && stream == null) {
      pending = p;
    }
  }

  // ---- the pool ------------------------------------------------------------------------------

  @Override
  public void onStreamReady(UpstreamStream ready) {
    pending = HostPool.Pending.NONE;
    if (ended) {
      ready.reset();
      return;
    }
    stream = ready;
    host.outlier().localOriginSuccess();
    readyNanos = System.nanoTime();
    ready.bind(this);
    listener.onCallReady(this);
  }

  @Override
  public void onStreamFailure(PoolFailure failure, String detail) {
    pending = HostPool.Pending.NONE;
    if (ended) {
      return;
    }
    outcome = failure == PoolFailure.OVERFLOW ? Outcome.ABANDONED : Outcome.TRANSPORT_ERROR;
    if (failure != PoolFailure.OVERFLOW && host != null) {
      host.outlier().localOriginFailure();
    }
    end(false);
    listener.onCallFailed(this, failure, detail);
  }

  // ---- the response --------------------------------------------------------------------------

  @Override
  public void onResponseHeaders(ResponseHeaders headers, boolean endStream) {
    if (!ended) {
      cancelGuardTimer();
      if (headers.status() >= 200) {
        responseStarted = true;
        host.outlier().putHttpStatus(headers.status());
        HealthChecker checker = cluster.healthChecker();
        if (checker != null && headers.headers().contains(HealthProbe.Http1.IMMEDIATE_FAIL)) {
          checker.passiveFailure(host);
        }
      }
      listener.onResponseHeaders(this, headers, endStream);
    }
  }

  private void onGuardTimeout() {
    guardTimer = null;
    if (ended) {
      return;
    }
    outcome = Outcome.TIMEOUT;
    host.requestTimedOut();
    cancel();
    listener.onCallTimedOut(this);
  }

  private void cancelGuardTimer() {
    if (guardTimer != null) {
      guardTimer.cancel(false);
      guardTimer = null;
    }
  }

  @Override
  public void onResponseData(ByteBuf data, boolean endStream) {
    if (ended) {
      data.release();
      return;
    }
    listener.onResponseData(this, data, endStream);
  }

  @Override
  public void onResponseTrailers(HttpHeaders trailers) {
    if (!ended) {
      listener.onResponseTrailers(this, trailers);
    }
  }

  @Override
  public void onReset(String reason) {
    if (!ended) {
      outcome = Outcome.TRANSPORT_ERROR;
      if (!responseStarted) {
        host.outlier().localOriginFailure();
      }
      end(false);
      listener.onCallReset(this, reason);
    }
  }

  @Override
  public void onReadComplete() {
    if (!ended) {
      listener.onReadComplete(this);
    }
  }

  @Override
  public void onWritabilityChanged(boolean writable) {
    if (!ended) {
      listener.onWritabilityChanged(this, writable);
    }
  }

  // ---- the end -------------------------------------------------------------------------------

  /**
   * The upstream switched protocols (101): the exchange is now a tunnel. The peer's guard hears a
   * success now and gets its slot back — a tunnel's lifetime is neither a response latency nor a
   * request in flight to it; the cluster's request slot stays until the tunnel ends, as in Envoy.
   */
  public void switchedProtocols() {
    cancelGuardTimer();
    if (permit != null) {
      permit.release(Outcome.SUCCESS);
      permit = null;
    }
  }

    /** The exchange completed normally; the stream goes back to its pool by itself. */
  public void complete(boolean success) {
    end(success);
  }

  /** Abandons the call wherever it is: queued in the guard, waiting for a stream, or under way. */
  public void cancel() {
    if (ended) {
      return;
    }
    end(false);
    if (ticket != null) {
      ticket.cancel(); // the guard's callback comes later and releases the permit it brings
      ticket = null;
    }
    pending.cancel();
    pending = HostPool.Pending.NONE;
    if (stream != null) {
      cluster.stats().upstreamRqTxReset.inc();
      stream.reset();
    }
  }

  private void end(boolean success) {
    if (ended && !slotHeld && permit == null) {
      return;
    }
    ended = true;
    cancelGuardTimer();
    cancelTimers();
    if (permit != null) {
      permit.release(outcome);
      permit = null;
    }
    if (slotHeld) {
      slotHeld = false;
      if (holding == null) {
        cluster.limits().releaseRequest();
      } else {
        holding.releaseRequest();
      }
      cluster.stats().upstreamRqActive.dec();
      cluster.stats().upstreamRqCompleted.inc();
      host.requestFinished(success);
      if (readyNanos != 0 && host.tracksLatency()) {
        host.requestLatency(System.nanoTime() - readyNanos);
      }
    }
  }
}
