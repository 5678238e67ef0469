package io.spillway.edge.filters.extauthz;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import io.netty.handler.codec.http.DefaultHttpHeaders;
import io.netty.handler.codec.http.HttpHeaderNames;
import io.netty.handler.codec.http.HttpHeaders;
import io.spillway.edge.authz.AuthorizationClient;
import io.spillway.edge.authz.AuthzAnswer;
import io.spillway.edge.http.filter.DecoderFilterCallbacks;
import io.spillway.edge.http.filter.ResponseFlag;
import io.spillway.edge.http.message.RequestHeaders;
import java.nio.charset.StandardCharsets;
import java.util.List;

/**
 * One request's gRPC check ({@code envoy.service.auth.v3.Authorization/Check}, Envoy's
 * {@code GrpcClientImpl} with the filter's {@code onComplete}). The call runs off the worker; its
 * answer comes back on the request's worker, and only then touches the request.
 *
 * <p>The verdict: OK → the request goes on with {@code ok_response}'s header, removal and query
 * changes, its {@code response_headers_to_add} wait for the response; DENIED → the client gets
 * {@code denied_response}'s status (403), headers and body (flag {@code UAEX}); a failed call (gRPC
 * error, deadline, no host) → {@code status_on_error} with {@code UAEX}, or through with
 * {@code failure_mode_allow}.
 */
final class GrpcAuthzCheck implements AuthzCheck {

  private final ExtAuthzFactory filter;
  private final Verdict request;
  private final DecoderFilterCallbacks stream;
  private final RequestHeaders downstreamRequest;
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
    pending = filter.grpcClient().check(CheckAttributes.of(filter, stream, downstreamRequest, body, partial),
        stream.worker().loop(), this::onAnswer);
  }

  @Override
  public void cancel() {
    if (done) {
      return;
    }
    done = true;
    pending.cancel();
  }

  /** On the request's worker. */
  void onAnswer(AuthzAnswer answer) {
    if (done) {
      return; // the request went away first
    }
    done = true;
    switch (answer.verdict()) {
      case OK -> {
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
        reply(status, text.length == 0 ? Unpooled.EMPTY_BUFFER : Unpooled.wrappedBuffer(text), headers);
      }
      case ERROR -> {
        filter.error.inc();
        if (filter.config().failureModeAllow()) {
          filter.failureModeAllowed.inc();
          if (filter.config().failureModeAllowHeaderAdd()) {
            downstreamRequest.headers().set(ExtAuthzCheck.FAILURE_MODE_ALLOWED_HEADER, "true");
          }
          request.onAuthzAllowed(List.of());
        } else {
          reply(filter.config().statusOnError(), Unpooled.EMPTY_BUFFER, new DefaultHttpHeaders());
        }
      }
    }
  }

  /** A reply to the client; a HEAD request's carries no body (its content-length stays). */
  private void reply(int status, ByteBuf body, HttpHeaders headers) {
    headers.setInt(HttpHeaderNames.CONTENT_LENGTH, body.readableBytes());
    ByteBuf sent = body;
    if (downstreamRequest.isHead() && body.isReadable()) {
      body.release();
      sent = Unpooled.EMPTY_BUFFER;
    }
    request.onAuthzReply(status, headers, sent, ResponseFlag.UAEX);
  }
}
