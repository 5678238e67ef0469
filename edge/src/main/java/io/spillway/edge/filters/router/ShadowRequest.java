package io.spillway.edge.filters.router;

import io.netty.buffer.ByteBuf;
import io.netty.handler.codec.http.HttpHeaders;
import io.spillway.edge.guard.Outcome;
import io.spillway.edge.guard.PeerGuard;
import io.spillway.edge.guard.Refusal;
import io.spillway.edge.http.filter.ActiveSpan;
import io.spillway.edge.http.message.RequestHeaders;
import io.spillway.edge.http.message.ResponseHeaders;
import io.spillway.edge.upstream.Cluster;
import io.spillway.edge.upstream.StreamCallbacks.PoolFailure;
import io.spillway.edge.upstream.UpstreamCall;
import io.spillway.edge.upstream.UpstreamStream;
import io.spillway.edge.upstream.Worker;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;

/**
 * One copy of a request sent to a route's mirror cluster (Envoy's shadow request): fire and
 * forget, on the request's worker, as an {@link UpstreamCall} through the mirror cluster's own
 * outbound guard, load balancer, circuit breakers and pools, counted in that cluster's stats like
 * any upstream request. Its response is read and dropped; nothing it does reaches the request it
 * copies, which never waits for it.
 *
 * <p>The body is copied as it streams (each part a retained duplicate of the request's). While the
 * copy's stream is not there yet, or cannot take more, its parts wait here — at most the stream's
 * buffer limit; a copy that falls further behind is abandoned (cancelled), so a slow or absent
 * mirror costs bounded memory. A request that ends before its body is whole takes its unfinished
 * copies with it. A finished copy runs until its response ends or the route timeout passes.
 */
final class ShadowRequest implements UpstreamCall.Listener {
  private final Cluster cluster;
  private final UpstreamCall call;
  private final RequestHeaders headers;
  private final RequestBody pending;
  private final long limit;
  private final ActiveSpan span;
  private final Worker worker;
  private ScheduledFuture<?> timeout;
  private UpstreamStream stream;
  private boolean done;
  private int status;

  /**
   * @param headers the copy's own request head (the request's after the route's changes, with its
   *     authority already suffixed), never shared with the request
   * @param limit how many body bytes may wait for the copy's stream
   * @param timeoutNanos the route timeout; 0 for none
   */
  ShadowRequest(Cluster cluster, PeerGuard guard, Worker worker, RequestHeaders headers, long limit,
      long timeoutNanos, ActiveSpan parentSpan) {
    this.cluster = cluster;
    this.worker = worker;
    this.headers = headers;
    this.limit = limit;
    this.pending = new RequestBody(false, limit);
    this.span = parentSpan.spawnUpstream(cluster.name());
    this.call = new UpstreamCall(cluster, guard, worker, this);
    if (timeoutNanos > 0) {
      timeout = worker.loop().schedule(this::onTimeout, timeoutNanos, TimeUnit.NANOSECONDS);
    }
  }

  void start(boolean endStream) {
    if (endStream) {
      pending.endWithoutBody();
    }
    call.start(null);
  }

  /** A part of the request's body, which the copy now owns. */
  void onData(ByteBuf part, boolean endStream) {
    if (done) {
      part.release();
      return;
    }
    pending.add(part, endStream);
    drain();
  }

  void onTrailers(HttpHeaders trailers) {
    if (done) {
      return;
    }
    pending.addTrailers(trailers);
    drain();
  }

  /** The request ended: a copy whose body is not whole cannot be finished and goes with it. */
  void onRequestDestroyed() {
    if (!done && !pending.complete()) {
      abandon();
    }
  }

  private void drain() {
    if (stream != null && stream.isWritable()) {
      pending.writeTo(stream);
    } else if (pending.unsentBytes() > limit) {
      abandon();
    }
  }

  private void abandon() {
    finish();
    call.cancel();
  }

  private void finish() {
    if (done) {
      return;
    }
    done = true;
    pending.release();
    if (timeout != null) {
      timeout.cancel(false);
      timeout = null;
    }
    span.finishUpstream(call.host() == null ? null : call.host().addressString(),
        cluster.config().protocol() == io.spillway.edge.config.ClusterConfig.UpstreamProtocol.HTTP2
            ? "HTTP/2" : "HTTP/1.1", status, 0);
  }

  private void onTimeout() {
    timeout = null;
    if (done) {
      return;
    }
    cluster.stats().upstreamRqTimeout.inc();
    if (call.host() != null) {
      call.host().requestTimedOut();
    }
    call.setOutcome(Outcome.TIMEOUT);
    finish();
    call.cancel();
  }

  // ---- the call ------------------------------------------------------------------------------

  @Override
  public void onCallReady(UpstreamCall c) {
    if (done) {
      c.cancel();
      return;
    }
    stream = c.stream();
    span.injectContext(headers.headers());
    if (pending.empty()) {
      stream.writeHeaders(headers, false, true);
      stream.flush();
    } else {
      stream.writeHeaders(headers, !pending.complete() || pending.hasContent(), false);
      pending.writeTo(stream);
    }
  }

  @Override
  public void onWritabilityChanged(UpstreamCall c, boolean writable) {
    if (writable && !done) {
      drain();
    }
  }

  @Override
  public void onCallRefused(UpstreamCall c, Refusal reason) {
    finish();
  }

  @Override
  public void onCallUnavailable(UpstreamCall c, boolean noHost) {
    finish();
  }

  @Override
  public void onCallFailed(UpstreamCall c, PoolFailure failure, String detail) {
    finish();
  }

  @Override
  public void onCallReset(UpstreamCall c, String reason) {
    finish();
  }

  @Override
  public void onCallTimedOut(UpstreamCall c) {
    cluster.stats().upstreamRqTimeout.inc();
    finish();
  }

  @Override
  public void onResponseHeaders(UpstreamCall c, ResponseHeaders response, boolean endStream) {
    status = response.status();
    c.setOutcome(Outcome.ofStatus(status));
    c.cancelTimers();
    cluster.stats().responseCode(status);
    if (endStream) {
      completed(c);
    }
  }

  @Override
  public void onResponseData(UpstreamCall c, ByteBuf data, boolean endStream) {
    data.release();
    if (endStream) {
      completed(c);
    }
  }

  @Override
  public void onResponseTrailers(UpstreamCall c, HttpHeaders trailers) {
    completed(c);
  }

  private void completed(UpstreamCall c) {
    cluster.stats().upstreamRqTime.record(TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - c.readyNanos()));
    finish();
    c.complete(status < 500);
  }

  /**
   * The copy's authority: {@code -shadow} after the host, before any port (Envoy's
   * {@code shadowAppendedHost}: {@code api.example:8080} becomes {@code api.example-shadow:8080}).
   */
  static String shadowAuthority(String authority) {
    int colon = authority.lastIndexOf(':');
    boolean port = colon > 0 && authority.indexOf(':') == colon;
    return port ? authority.substring(0, colon) + "-shadow" + authority.substring(colon)
        : authority + "-shadow";
  }
}
