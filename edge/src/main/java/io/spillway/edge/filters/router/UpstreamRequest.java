package io.spillway.edge.filters.router;

import io.netty.buffer.ByteBuf;
import io.netty.handler.codec.http.HttpHeaders;
import io.spillway.edge.http.message.ResponseHeaders;
import io.spillway.edge.upstream.Cluster;
import io.spillway.edge.upstream.Host;
import io.spillway.edge.upstream.HostPool;
import io.spillway.edge.upstream.StreamCallbacks;
import io.spillway.edge.upstream.UpstreamResponseListener;
import io.spillway.edge.upstream.UpstreamStream;
import java.util.concurrent.ScheduledFuture;

/**
 * One try of a request against one upstream host (Envoy's {@code UpstreamRequest}): asks the
 * host's pool for a stream, relays the stream's events to its {@link RouterFilter}, and gives back
 * the cluster's request slot, the host's active count and the guard's permit exactly once, however
 * it ends.
 */
final class UpstreamRequest implements StreamCallbacks, UpstreamResponseListener {

  private final RouterFilter request;
  private final Cluster cluster;
  private final Host host;
  private HostPool.Pending pending = HostPool.Pending.NONE;
  private UpstreamStream stream;
  private boolean ended;
  long startNanos;
  ScheduledFuture<?> perTryTimer;
  /** The outbound guard's permit for this try, released with {@link #outcome} when the try ends. */
  io.spillway.edge.guard.Permit guardPermit;
  io.spillway.edge.guard.Outcome outcome = io.spillway.edge.guard.Outcome.ABANDONED;
  /** The guard's request timeout (enforce): until the response headers. */
  ScheduledFuture<?> guardTimer;

  UpstreamRequest(RouterFilter request, Cluster cluster, Host host) {
    this.request = request;
    this.cluster = cluster;
    this.host = host;
  }

  Host host() {
    return host;
  }

  Cluster cluster() {
    return cluster;
  }

  /** The stream, once the pool has handed one out. */
  UpstreamStream stream() {
    return stream;
  }

  void start() {
    startNanos = System.nanoTime();
    HostPool.Pending p = cluster.pool(host, request.worker()).newStream(this);
    if (!ended && stream == null) {
      pending = p;
    }
  }

  @Override
  public void onStreamReady(UpstreamStream stream) {
    pending = HostPool.Pending.NONE;
    if (ended) {
      stream.reset();
      return;
    }
    this.stream = stream;
    stream.bind(this);
    request.onAttemptReady(this);
  }

  @Override
  public void onStreamFailure(PoolFailure failure, String detail) {
    pending = HostPool.Pending.NONE;
    if (!ended) {
      request.onAttemptFailure(this, failure, detail);
    }
  }

  @Override
  public void onResponseHeaders(ResponseHeaders headers, boolean endStream) {
    if (!ended) {
      request.onUpstreamHeaders(this, headers, endStream);
    }
  }

  @Override
  public void onResponseData(ByteBuf data, boolean endStream) {
    if (ended) {
      data.release();
      return;
    }
    request.onUpstreamData(this, data, endStream);
  }

  @Override
  public void onResponseTrailers(HttpHeaders trailers) {
    if (!ended) {
      request.onUpstreamTrailers(this, trailers);
    }
  }

  @Override
  public void onReset(String reason) {
    if (!ended) {
      request.onUpstreamReset(this, reason);
    }
  }

  @Override
  public void onReadComplete() {
    if (!ended) {
      request.onUpstreamReadComplete();
    }
  }

  @Override
  public void onWritabilityChanged(boolean writable) {
    if (!ended) {
      request.onUpstreamWritability(writable);
    }
  }

  void cancelGuardTimer() {
    if (guardTimer != null) {
      guardTimer.cancel(false);
      guardTimer = null;
    }
  }

  void cancelPerTryTimer() {
    if (perTryTimer != null) {
      perTryTimer.cancel(false);
      perTryTimer = null;
    }
  }

  /** The exchange completed normally; the stream goes back to its pool by itself. */
  void complete(boolean success) {
    end(success);
  }

  /** Abandons the try: cancels a pending stream request or resets the stream. */
  void cancel() {
    if (ended) {
      return;
    }
    end(false);
    pending.cancel();
    pending = HostPool.Pending.NONE;
    if (stream != null) {
      cluster.stats().upstreamRqTxReset.inc();
      stream.reset();
    }
  }

  /** The try failed on its own (reset by the peer, pool failure): give back what it holds. */
  void failed() {
    end(false);
  }

  private void end(boolean success) {
    if (ended) {
      return;
    }
    ended = true;
    if (perTryTimer != null) {
      perTryTimer.cancel(false);
      perTryTimer = null;
    }
    if (guardTimer != null) {
      guardTimer.cancel(false);
      guardTimer = null;
    }
    if (guardPermit != null) {
      guardPermit.release(outcome);
      guardPermit = null;
    }
    cluster.limits().releaseRequest();
    cluster.stats().upstreamRqActive.dec();
    cluster.stats().upstreamRqCompleted.inc();
    host.requestFinished(success);
  }
}
