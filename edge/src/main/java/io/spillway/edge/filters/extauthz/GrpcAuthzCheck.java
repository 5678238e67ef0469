package io.spillway.edge.filters.extauthz;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import io.netty.handler.codec.http.DefaultHttpHeaders;
import io.netty.handler.codec.http.HttpHeaderNames;
import io.netty.handler.codec.http.HttpHeaders;
import io.spillway.edge.authz.AuthorizationClient;
import io.spillway.edge.authz.AuthzAnswer;
import io.spillway.edge.authz.AuthzRequest;
import io.spillway.edge.guard.GuardedCall;
import io.spillway.edge.guard.Outcome;
import io.spillway.edge.guard.Refusal;
import io.spillway.edge.http.filter.DecoderFilterCallbacks;
import io.spillway.edge.http.filter.ResponseFlag;
import io.spillway.edge.http.message.RequestHeaders;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;

/**
 * One request's gRPC check ({@code envoy.service.auth.v3.Authorization/Check}, Envoy's
 * {@code GrpcClientImpl} with the filter's {@code onComplete}). The call runs off the worker; its
 * answer comes back on the request's worker, and only then touches the request. Like the HTTP
 * check it passes the outbound guard of its cluster (admitted, queued or refused; in
 * {@code enforce} the guard's request timeout caps the deadline), and its permit is released
 * exactly once with the call's {@link Outcome}.
 *
 * <p>The verdict: OK → the request goes on with {@code ok_response}'s header, removal and query
 * changes, its {@code response_headers_to_add} wait for the response; DENIED → the client gets
 * {@code denied_response}'s status (403), headers and body (flag {@code UAEX}); a failed call (gRPC
 * error, deadline, no host) → {@code status_on_error} with {@code UAEX}, or through with
 * {@code failure_mode_allow}; a guard refusal → {@code 503} with {@code GR}, or through with
 * {@code failure_mode_allow}.
 */
final class GrpcAuthzCheck implements AuthzCheck, GuardedCall.Steps {

  private final ExtAuthzFactory filter;
  private final Verdict request;
  private final DecoderFilterCallbacks stream;
  private final RequestHeaders downstreamRequest;
  private AuthzRequest attributes;
  private GuardedCall guarded;
  private AuthorizationClient.PendingCheck pending;
  private boolean done;

  GrpcAuthzCheck(ExtAuthzFactory filter, Verdict request, DecoderFilterCallbacks stream, RequestHeaders downstreamRequest) {
    this.filter = filter;
    this.request = request;
    this.stream = stream;
    this.downstreamRequest = downstreamRequest;
  }

  @Override
  public void start(ByteBuf body, boolean partial) {
    attributes = CheckAttributes.of(filter, stream, downstreamRequest, body, partial); // copies the body
    var guards = filter.context().guards();
    guarded = new GuardedCall(guards == null ? null : guards.guard(filter.config().cluster()), filter.config().timeout(),
        this);
    guarded.start(stream.worker().guardLoop());
  }

  @Override
  public void call(Duration timeout) {
    pending = filter.grpcClient().check(attributes, timeout, stream.worker().loop(), this::onAnswer);
    attributes = null;
  }

  @Override
  public void cancel() {
    if (done) {
      return;
    }
    done = true;
    if (pending != null) {
      pending.cancel();
    }
    guarded.abandon();
  }

  private void release(Outcome outcome) {
    guarded.release(outcome);
  }

  @Override
  public void refused(Refusal reason) {
    done = true;
    filter.error.inc();
    if (filter.config().failureModeAllow()) {
      allowOnFailure();
    } else {
      byte[] text = ("upstream guard refused the auth call: " + reason.label()).getBytes(StandardCharsets.UTF_8);
      HttpHeaders headers = new DefaultHttpHeaders().set(HttpHeaderNames.CONTENT_TYPE, "text/plain");
      reply(503, Unpooled.wrappedBuffer(text), headers, ResponseFlag.GR);
    }
  }

  /** On the request's worker. */
  void onAnswer(AuthzAnswer answer) {
    if (done) {
      return; // the request went away first
    }
    done = true;
    switch (answer.verdict()) {
      case OK -> {
        release(Outcome.SUCCESS);
        filter.ok.inc();
        int invalid = HeaderChanges.apply(answer.requestHeaders(), downstreamRequest.headers())
            + HeaderChanges.remove(answer.requestHeadersToRemove(), downstreamRequest.headers())
            + HeaderChanges.query(answer.queryParametersToSet(), answer.queryParametersToRemove(), downstreamRequest);
        if (invalid > 0) {
          filter.invalid.add(invalid);
        }
        request.onAuthzAllowed(answer.responseHeaders());
      }
      case DENIED -> {
        release(Outcome.SUCCESS);
        filter.denied.inc();
        byte[] text = answer.deniedBody().getBytes(StandardCharsets.UTF_8);
        HttpHeaders headers = new DefaultHttpHeaders();
        if (text.length > 0) {
          headers.set(HttpHeaderNames.CONTENT_TYPE, "text/plain");
        }
        int invalid = HeaderChanges.apply(answer.deniedHeaders(), headers);
        if (invalid > 0) {
          filter.invalid.add(invalid);
        }
        int status = answer.deniedStatus() >= 200 && answer.deniedStatus() <= 599
            ? answer.deniedStatus() : AuthzAnswer.DEFAULT_DENIED_STATUS;
        reply(status, text.length == 0 ? Unpooled.EMPTY_BUFFER : Unpooled.wrappedBuffer(text), headers,
            ResponseFlag.UAEX);
      }
      case ERROR -> {
        release(answer.timedOut() ? Outcome.TIMEOUT : Outcome.TRANSPORT_ERROR);
        filter.error.inc();
        if (filter.config().failureModeAllow()) {
          allowOnFailure();
        } else {
          reply(filter.config().statusOnError(), Unpooled.EMPTY_BUFFER, new DefaultHttpHeaders(), ResponseFlag.UAEX);
        }
      }
    }
  }

  private void allowOnFailure() {
    filter.failureModeAllowed.inc();
    if (filter.config().failureModeAllowHeaderAdd()) {
      downstreamRequest.headers().set(ExtAuthzCheck.FAILURE_MODE_ALLOWED_HEADER, "true");
    }
    request.onAuthzAllowed(List.of());
  }

  /** A reply to the client; a HEAD request's carries no body (its content-length stays). */
  private void reply(int status, ByteBuf body, HttpHeaders headers, ResponseFlag flag) {
    headers.setInt(HttpHeaderNames.CONTENT_LENGTH, body.readableBytes());
    ByteBuf sent = body;
    if (downstreamRequest.isHead() && body.isReadable()) {
      body.release();
      sent = Unpooled.EMPTY_BUFFER;
    }
    request.onAuthzReply(status, headers, sent, flag);
  }
}
