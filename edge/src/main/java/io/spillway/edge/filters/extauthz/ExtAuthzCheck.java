package io.spillway.edge.filters.extauthz;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.CompositeByteBuf;
import io.netty.buffer.Unpooled;
import io.netty.handler.codec.http.DefaultHttpHeaders;
import io.netty.handler.codec.http.HttpHeaderNames;
import io.netty.handler.codec.http.HttpHeaders;
import io.spillway.edge.config.ExtAuthzConfig;
import io.spillway.edge.guard.Outcome;
import io.spillway.edge.guard.PeerGuard;
import io.spillway.edge.guard.Permit;
import io.spillway.edge.guard.QueueCallback;
import io.spillway.edge.guard.Refusal;
import io.spillway.edge.http.filter.FilterContext;
import io.spillway.edge.http.filter.ResponseFlag;
import io.spillway.edge.http.message.HopByHop;
import io.spillway.edge.http.message.RequestHeaders;
import io.spillway.edge.http.message.ResponseHeaders;
import io.spillway.edge.upstream.Cluster;
import io.spillway.edge.upstream.Host;
import io.spillway.edge.upstream.HostPool;
import io.spillway.edge.upstream.StreamCallbacks;
import io.spillway.edge.upstream.UpstreamResponseListener;
import io.spillway.edge.upstream.UpstreamStream;
import io.spillway.edge.upstream.Worker;
import java.nio.charset.StandardCharsets;
import java.util.Locale;
import java.util.Map;
import java.util.OptionalInt;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;

/**
 * One request's call to the external authorization service (Envoy's ext_authz
 * {@code RawHttpClientImpl} request), made on the request's worker through the auth cluster's
 * per-worker pools, like an upstream try. The call passes the outbound guard of its cluster (the
 * {@code auth} peer) exactly as a router try does: admitted, queued or refused, and its permit is
 * released exactly once with the call's {@link Outcome}, on every path — answer, transport error,
 * timeout, or the request going away mid-check ({@link #cancel()}).
 *
 * <p>The verdict, Envoy's: {@code 200} → OK (allowed headers copied to the upstream request);
 * {@code 5xx}, a transport error, a timeout, no host or an overflowing cluster → error
 * ({@code status_on_error}, or through with {@code failure_mode_allow}); any other status → denied
 * (that status, its allowed headers and body to the client). A guard refusal answers {@code 503}
 * with flag {@code GR}, or lets the request through with {@code failure_mode_allow}.
 */
final class ExtAuthzCheck implements StreamCallbacks, UpstreamResponseListener, QueueCallback {

  private static final String FAILURE_MODE_ALLOWED_HEADER = "x-envoy-auth-failure-mode-allowed";

  /** Where the verdict goes: the request's ext_authz filter. */
  interface Verdict {
    /** Through to the next filter; {@code clientHeaders} go on the client's response (or null). */
    void onAuthzAllowed(HttpHeaders clientHeaders);

    /** The check answers the request itself. */
    void onAuthzReply(int status, HttpHeaders headers, ByteBuf body, ResponseFlag flag);
  }

  private final ExtAuthzFactory filter;
  private final Verdict request;
  private final FilterContext context;
  private final Worker worker;
  private final RequestHeaders downstreamRequest;
  private final boolean head;

  private Cluster cluster;
  private Host host;
  private PeerGuard guard;
  private Permit permit;
  private io.spillway.edge.guard.Ticket ticket;
  private HostPool.Pending pending = HostPool.Pending.NONE;
  private UpstreamStream stream;
  private ScheduledFuture<?> timer;
  private boolean slotHeld;
  private boolean done;
  private Outcome outcome = Outcome.ABANDONED;
  private int status;
  private HttpHeaders responseHeaders;
  private CompositeByteBuf body;

  ExtAuthzCheck(ExtAuthzFactory filter, Verdict request, FilterContext context, Worker worker,
      RequestHeaders downstreamRequest) {
    this.filter = filter;
    this.request = request;
    this.context = context;
    this.worker = worker;
    this.downstreamRequest = downstreamRequest;
    this.head = downstreamRequest.isHead();
  }

  /** Starts the check; the verdict reaches the request later, or inline when it fails at once. */
  void start() {
    ExtAuthzConfig config = filter.config();
    cluster = context.clusters().get(config.cluster());
    if (cluster == null) {
      finishWithError(); // removed by CDS since the listener was built
      return;
    }
    guard = context.guards() == null ? null : context.guards().guard(config.cluster());
    if (guard == null) {
      send(null);
      return;
    }
    switch (guard.tryAcquire(worker.guardLoop(), this)) {
      case Permit admitted -> send(admitted);
      case Refusal reason -> refused(reason);
      case io.spillway.edge.guard.Ticket queued -> ticket = queued;
    }
  }

  /** The request went away (client disconnect, timeout) mid-check: abandon the call, release once. */
  void cancel() {
    if (done) {
      return;
    }
    done = true;
    if (ticket != null) {
      ticket.cancel(); // false: the callback runs later and releases the permit it brings
      ticket = null;
    }
    pending.cancel();
    pending = HostPool.Pending.NONE;
    if (stream != null) {
      cluster.stats().upstreamRqTxReset.inc();
      stream.reset();
    }
    end(false);
  }

  // ---- the guard's queue ---------------------------------------------------------------------

  @Override
  public void onAdmitted(Permit admitted) {
    ticket = null;
    if (done) {
      admitted.release(Outcome.ABANDONED);
      return;
    }
    send(admitted);
  }

  @Override
  public void onRefused(Refusal reason) {
    ticket = null;
    if (!done) {
      refused(reason);
    }
  }

  private void refused(Refusal reason) {
    done = true;
    filter.error.inc();
    if (filter.config().failureModeAllow()) {
      allowOnFailure();
    } else {
      reply(503, textBody("upstream guard refused the auth call: " + reason.label()), null, ResponseFlag.GR);
    }
  }

  // ---- the call ------------------------------------------------------------------------------

  private void send(Permit admitted) {
    permit = admitted;
    host = cluster.pickHost(worker);
    if (host == null) {
      cluster.stats().upstreamCxNoneHealthy.inc();
      finishWithError();
      return;
    }
    if (!cluster.limits().tryAcquireRequest()) {
      cluster.stats().upstreamRqPendingOverflow.inc();
      finishWithError();
      return;
    }
    slotHeld = true;
    cluster.stats().upstreamRqTotal.inc();
    cluster.stats().upstreamRqActive.inc();
    host.requestStarted();
    long timeoutNanos = filter.config().timeout().toNanos();
    OptionalInt guardTimeout = admitted == null ? OptionalInt.empty() : guard.requestTimeoutMillis();
    if (guardTimeout.isPresent()) {
      long guardNanos = TimeUnit.MILLISECONDS.toNanos(guardTimeout.getAsInt());
      timeoutNanos = timeoutNanos == 0 ? guardNanos : Math.min(timeoutNanos, guardNanos);
    }
    if (timeoutNanos > 0) {
      timer = worker.loop().schedule(this::onTimeout, timeoutNanos, TimeUnit.NANOSECONDS);
    }
    HostPool.Pending p = cluster.pool(host, worker).newStream(this);
    if (!done && stream == null) {
      pending = p;
    }
  }

  @Override
  public void onStreamReady(UpstreamStream ready) {
    pending = HostPool.Pending.NONE;
    if (done) {
      ready.reset();
      return;
    }
    stream = ready;
    ready.bind(this);
    ready.writeHeaders(checkRequest(), false, true);
  }

  @Override
  public void onStreamFailure(PoolFailure failure, String detail) {
    pending = HostPool.Pending.NONE;
    if (done) {
      return;
    }
    outcome = failure == PoolFailure.OVERFLOW ? Outcome.ABANDONED : Outcome.TRANSPORT_ERROR;
    finishWithError();
  }

  /** The request's method and path (behind path_prefix), the allowed headers, no body. */
  private RequestHeaders checkRequest() {
    ExtAuthzConfig config = filter.config();
    HttpHeaders headers = new DefaultHttpHeaders();
    for (Map.Entry<String, String> h : downstreamRequest.headers()) {
      String name = h.getKey().toLowerCase(Locale.ROOT);
      if (!name.equals("content-length") && filter.sendsRequestHeader(name)) {
        headers.add(name, h.getValue());
      }
    }
    headers.remove(HttpHeaderNames.HOST);
    HopByHop.strip(headers);
    for (ExtAuthzConfig.Header h : config.headersToAdd()) {
      headers.set(h.name(), h.value());
    }
    headers.set(HttpHeaderNames.CONTENT_LENGTH, "0");
    return new RequestHeaders(downstreamRequest.method(), "http", downstreamRequest.authority(),
        config.pathPrefix() + downstreamRequest.pathAndQuery(), headers);
  }

  @Override
  public void onResponseHeaders(ResponseHeaders response, boolean endStream) {
    if (done) {
      return;
    }
    status = response.status();
    outcome = Outcome.ofStatus(status);
    cluster.stats().responseCode(status);
    responseHeaders = response.headers();
    if (isDenied()) {
      body = worker.allocator().compositeBuffer();
    }
    if (endStream) {
      onComplete();
    }
  }

  @Override
  public void onResponseData(ByteBuf part, boolean endStream) {
    if (done) {
      part.release();
      return;
    }
    if (body != null) {
      if (body.readableBytes() + part.readableBytes() > context.bufferLimitBytes()) {
        part.release();
        stream.reset(); // a denial too large to relay: the check failed
        finishWithError();
        return;
      }
      if (part.isReadable()) {
        body.addComponent(true, part.retain());
      }
    }
    part.release();
    if (endStream) {
      onComplete();
    }
  }

  @Override
  public void onResponseTrailers(HttpHeaders trailers) {
    if (!done) {
      onComplete();
    }
  }

  @Override
  public void onReset(String reason) {
    if (!done) {
      outcome = Outcome.TRANSPORT_ERROR;
      finishWithError();
    }
  }

  @Override
  public void onReadComplete() {}

  @Override
  public void onWritabilityChanged(boolean writable) {}

  private void onTimeout() {
    timer = null;
    if (done) {
      return;
    }
    outcome = Outcome.TIMEOUT;
    host.requestTimedOut();
    cluster.stats().upstreamRqTimeout.inc();
    if (stream != null) {
      cluster.stats().upstreamRqTxReset.inc();
      stream.reset();
    }
    pending.cancel();
    pending = HostPool.Pending.NONE;
    finishWithError();
  }

  private boolean isDenied() {
    return status != 200 && status < 500;
  }

  /** The whole answer arrived (the stream goes back to its pool by itself). */
  private void onComplete() {
    ByteBuf denial = body; // kept past end(), which releases a body still held
    body = null;
    done = true;
    end(status < 500);
    if (status == 200) {
      filter.ok.inc();
      HttpHeaders clientHeaders = null;
      for (Map.Entry<String, String> h : responseHeaders) {
        String name = h.getKey().toLowerCase(Locale.ROOT);
        if (filter.toUpstream(name)) {
          downstreamRequest.headers().set(name, h.getValue());
        }
        if (filter.toClientOnSuccess(name)) {
          if (clientHeaders == null) {
            clientHeaders = new DefaultHttpHeaders();
          }
          clientHeaders.add(name, h.getValue());
        }
      }
      request.onAuthzAllowed(clientHeaders);
    } else if (status >= 500) {
      onError();
    } else {
      filter.denied.inc();
      HttpHeaders headers = new DefaultHttpHeaders();
      for (Map.Entry<String, String> h : responseHeaders) {
        String name = h.getKey().toLowerCase(Locale.ROOT);
        if (filter.toClientOnDenied(name)) {
          headers.add(name, h.getValue());
        }
      }
      HopByHop.strip(headers);
      headers.remove(HttpHeaderNames.CONTENT_LENGTH);
      headers.remove(HttpHeaderNames.SERVER);
      reply(status, denial, headers, ResponseFlag.UAEX);
    }
  }

  private void finishWithError() {
    done = true;
    end(false);
    onError();
  }

  /** Envoy's error verdict: status_on_error with UAEX, or through with failure_mode_allow. */
  private void onError() {
    filter.error.inc();
    if (filter.config().failureModeAllow()) {
      allowOnFailure();
    } else {
      reply(filter.config().statusOnError(), Unpooled.EMPTY_BUFFER, null, ResponseFlag.UAEX);
    }
  }

  private void allowOnFailure() {
    filter.failureModeAllowed.inc();
    if (filter.config().failureModeAllowHeaderAdd()) {
      downstreamRequest.headers().set(FAILURE_MODE_ALLOWED_HEADER, "true");
    }
    request.onAuthzAllowed(null);
  }

  /** Gives back what the call holds, once: timer, guard permit (with the outcome), cluster slot, body. */
  private void end(boolean success) {
    if (timer != null) {
      timer.cancel(false);
      timer = null;
    }
    if (permit != null) {
      permit.release(outcome);
      permit = null;
    }
    if (slotHeld) {
      slotHeld = false;
      cluster.limits().releaseRequest();
      cluster.stats().upstreamRqActive.dec();
      cluster.stats().upstreamRqCompleted.inc();
      host.requestFinished(success);
    }
    if (body != null) {
      body.release();
      body = null;
    }
  }

  private static ByteBuf textBody(String text) {
    return Unpooled.wrappedBuffer(text.getBytes(StandardCharsets.UTF_8));
  }

  /** A reply to the client; a HEAD request's carries no body (its content-length stays). */
  private void reply(int code, ByteBuf content, HttpHeaders extra, ResponseFlag flag) {
    int length = content.readableBytes();
    ByteBuf sent = content;
    if (head && length > 0) {
      content.release();
      sent = Unpooled.EMPTY_BUFFER;
    }
    HttpHeaders headers = new DefaultHttpHeaders();
    if (length > 0 && code == 503) {
      headers.set(HttpHeaderNames.CONTENT_TYPE, "text/plain");
    }
    headers.setInt(HttpHeaderNames.CONTENT_LENGTH, length);
    if (extra != null) {
      headers.add(extra);
    }
    request.onAuthzReply(code, headers, sent, flag);
  }
}
