package io.spillway.edge.filters.jwtauthn;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.CompositeByteBuf;
import io.netty.handler.codec.http.DefaultHttpHeaders;
import io.netty.handler.codec.http.HttpHeaders;
import io.spillway.edge.config.JwtAuthnConfig;
import io.spillway.edge.guard.GuardRegistry;
import io.spillway.edge.guard.Outcome;
import io.spillway.edge.guard.PeerGuard;
import io.spillway.edge.guard.Refusal;
import io.spillway.edge.http.message.RequestHeaders;
import io.spillway.edge.http.message.ResponseHeaders;
import io.spillway.edge.upstream.Cluster;
import io.spillway.edge.upstream.ClusterManager;
import io.spillway.edge.upstream.Host;
import io.spillway.edge.upstream.StreamCallbacks.PoolFailure;
import io.spillway.edge.upstream.UpstreamCall;
import io.spillway.edge.upstream.Worker;
import java.nio.charset.StandardCharsets;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;
import java.util.function.Consumer;

/**
 * One fetch of a {@code remote_jwks} document (Envoy's {@code JwksFetcher} over the cluster's
 * async client): a {@code GET} of {@code http_uri} through the cluster's per-worker pools on the
 * fetching worker, as an {@link UpstreamCall} like an ext_authz check — the cluster's outbound
 * guard, load balancer, request slot and stats. {@code http_uri.timeout} bounds the whole fetch.
 *
 * <p>With {@code retry_policy}, Envoy's conversion to a route retry policy: retried on a 5xx, a
 * connection failure, a reset or a try's timeout ({@code max_interval}), at most
 * {@code num_retries} times, after a full-jitter exponential back-off from {@code base_interval}
 * capped at {@code max_interval}; each retry takes the peer's retry budget and the cluster's retry
 * slot, as a router retry does. The answer: the body of a {@code 200} (at most the listener's
 * buffer limit), or a failure. Used on the worker's loop only.
 */
final class JwksFetch implements UpstreamCall.Listener {

  /** The fetcher the factory gives each remote provider's cache. */
  static RemoteJwksCache.Fetcher fetcher(JwtAuthnConfig.RemoteKeys config, ClusterManager clusters,
      GuardRegistry guards, int maxBodyBytes) {
    return (worker, done) -> {
      JwksFetch fetch = new JwksFetch(config, clusters, guards, worker, maxBodyBytes, done);
      if (worker.loop().inEventLoop()) {
        fetch.start();
      } else {
        worker.loop().execute(fetch::start);
      }
    };
  }

  private final JwtAuthnConfig.RemoteKeys config;
  private final ClusterManager clusters;
  private final GuardRegistry guards;
  private final Worker worker;
  private final int maxBodyBytes;
  private final Consumer<RemoteJwksCache.FetchResult> done;

  private Cluster cluster;
  private PeerGuard guard;
  private UpstreamCall call;
  private Host lastHost;
  private int retriesUsed;
  private boolean retrySlotHeld;
  private boolean finished;
  private ScheduledFuture<?> deadline;
  private ScheduledFuture<?> tryTimer;
  private ScheduledFuture<?> backOff;
  private int status;
  private CompositeByteBuf body;

  private JwksFetch(JwtAuthnConfig.RemoteKeys config, ClusterManager clusters, GuardRegistry guards, Worker worker,
      int maxBodyBytes, Consumer<RemoteJwksCache.FetchResult> done) {
    this.config = config;
    this.clusters = clusters;
    this.guards = guards;
    this.worker = worker;
    this.maxBodyBytes = maxBodyBytes;
    this.done = done;
  }

  private void start() {
    long timeout = config.timeout().toNanos();
    if (timeout > 0) {
      deadline = worker.loop().schedule(this::onDeadline, timeout, TimeUnit.NANOSECONDS);
    }
    tryOnce();
  }

  private void tryOnce() {
    backOff = null;
    cluster = clusters.get(config.cluster());
    if (cluster == null) {
      fail("cluster " + config.cluster() + " is not configured"); // removed by CDS since the filter was built
      return;
    }
    guard = guards == null ? null : guards.guard(config.cluster());
    status = 0;
    call = new UpstreamCall(cluster, guard, worker, this);
    if (config.retry().isPresent()) {
      long perTry = config.retry().get().maxInterval().toNanos();
      tryTimer = worker.loop().schedule(this::onTryTimeout, perTry, TimeUnit.NANOSECONDS);
    }
    call.start(lastHost);
  }

  // ---- the call ------------------------------------------------------------------------------

  @Override
  public void onCallReady(UpstreamCall c) {
    lastHost = c.host();
    c.stream().writeHeaders(new RequestHeaders("GET", config.scheme(), config.authority(), config.pathAndQuery(),
        new DefaultHttpHeaders()), false, true);
  }

  @Override
  public void onCallRefused(UpstreamCall c, Refusal reason) {
    fail("the outbound guard refused the fetch: " + reason.label());
  }

  @Override
  public void onCallUnavailable(UpstreamCall c, boolean noHost) {
    fail(noHost ? "no healthy upstream" : "the cluster's request circuit breaker is full");
  }

  @Override
  public void onCallFailed(UpstreamCall c, PoolFailure failure, String detail) {
    lastHost = c.host();
    retryOrFail("connection failure: " + detail);
  }

  @Override
  public void onCallReset(UpstreamCall c, String reason) {
    releaseBody();
    retryOrFail("reset: " + reason);
  }

  @Override
  public void onCallTimedOut(UpstreamCall c) {
    cluster.stats().upstreamRqTimeout.inc();
    retryOrFail("the outbound guard's request timeout passed");
  }

  @Override
  public void onResponseHeaders(UpstreamCall c, ResponseHeaders response, boolean endStream) {
    status = response.status();
    c.setOutcome(Outcome.ofStatus(status));
    cluster.stats().responseCode(status);
    cancelTryTimer();
    if (status == 200) {
      body = worker.allocator().compositeBuffer(Integer.MAX_VALUE);
    }
    if (endStream) {
      onComplete(c);
    }
  }

  @Override
  public void onResponseData(UpstreamCall c, ByteBuf part, boolean endStream) {
    if (body != null) {
      if (body.readableBytes() + part.readableBytes() > maxBodyBytes) {
        part.release();
        releaseBody();
        c.cancel();
        fail("the JWKS is larger than the buffer limit of " + maxBodyBytes + " bytes");
        return;
      }
      if (part.isReadable()) {
        body.addComponent(true, part.retain());
      }
    }
    part.release();
    if (endStream) {
      onComplete(c);
    }
  }

  @Override
  public void onResponseTrailers(UpstreamCall c, HttpHeaders trailers) {
    onComplete(c);
  }

  private void onComplete(UpstreamCall c) {
    c.complete(status < 500);
    if (status >= 500) {
      retryOrFail("status " + status);
      return;
    }
    if (status != 200) {
      fail("status " + status);
      return;
    }
    String text = body.toString(StandardCharsets.UTF_8);
    releaseBody();
    if (text.isEmpty()) {
      fail("the body is empty");
      return;
    }
    finish(new RemoteJwksCache.FetchResult.Fetched(text));
  }

  // ---- timers and retries --------------------------------------------------------------------

  private void onTryTimeout() {
    tryTimer = null;
    if (finished || call == null || call.ended()) {
      return;
    }
    call.setOutcome(Outcome.TIMEOUT);
    if (call.host() != null) {
      call.host().requestTimedOut();
    }
    cluster.stats().upstreamRqTimeout.inc();
    call.cancel();
    releaseBody();
    retryOrFail("the try's timeout passed");
  }

  private void onDeadline() {
    deadline = null;
    if (finished) {
      return;
    }
    if (call != null && !call.ended()) {
      call.setOutcome(Outcome.TIMEOUT);
      if (call.host() != null) {
        call.host().requestTimedOut();
      }
      cluster.stats().upstreamRqTimeout.inc();
      call.cancel();
    }
    fail("http_uri.timeout passed");
  }

  /** A retriable failure: another try after the back-off when the policy, the budget and the cluster allow. */
  private void retryOrFail(String reason) {
    if (finished) {
      return;
    }
    cancelTryTimer();
    JwtAuthnConfig.FetchRetry retry = config.retry().orElse(null);
    if (retry == null || retriesUsed >= retry.numRetries()) {
      fail(reason);
      return;
    }
    if (guard != null && !guard.canRetry()) {
      fail(reason + " (the retry budget is spent)");
      return;
    }
    releaseRetrySlot();
    if (!cluster.limits().tryAcquireRetry()) {
      cluster.stats().upstreamRqRetryOverflow.inc();
      fail(reason + " (the cluster's retry circuit breaker is full)");
      return;
    }
    retrySlotHeld = true;
    retriesUsed++;
    cluster.stats().upstreamRqRetry.inc();
    long base = Math.max(1, retry.baseInterval().toNanos());
    long cap = Math.max(base, retry.maxInterval().toNanos());
    long ceiling = Math.min(cap, base << Math.min(retriesUsed - 1, 20));
    long delay = Math.max(1, (long) (worker.random().nextDouble() * ceiling));
    call = null;
    backOff = worker.loop().schedule(this::tryOnce, delay, TimeUnit.NANOSECONDS);
  }

  private void fail(String reason) {
    finish(new RemoteJwksCache.FetchResult.Failed(reason));
  }

  private void finish(RemoteJwksCache.FetchResult result) {
    if (finished) {
      return;
    }
    finished = true;
    if (call != null && !call.ended()) {
      call.cancel();
    }
    cancelTryTimer();
    if (deadline != null) {
      deadline.cancel(false);
      deadline = null;
    }
    if (backOff != null) {
      backOff.cancel(false);
      backOff = null;
    }
    if (retrySlotHeld && result instanceof RemoteJwksCache.FetchResult.Fetched) {
      cluster.stats().upstreamRqRetrySuccess.inc();
    }
    releaseRetrySlot();
    releaseBody();
    done.accept(result);
  }

  private void cancelTryTimer() {
    if (tryTimer != null) {
      tryTimer.cancel(false);
      tryTimer = null;
    }
  }

  private void releaseRetrySlot() {
    if (retrySlotHeld) {
      cluster.limits().releaseRetry();
      retrySlotHeld = false;
    }
  }

  private void releaseBody() {
    if (body != null) {
      body.release();
      body = null;
    }
  }
}
