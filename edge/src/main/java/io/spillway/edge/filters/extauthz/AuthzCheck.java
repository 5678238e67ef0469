package io.spillway.edge.filters.extauthz;

import io.netty.buffer.ByteBuf;
import io.spillway.edge.authz.AuthzHeader;
import io.spillway.edge.http.filter.ResponseFlag;
import io.netty.handler.codec.http.HttpHeaders;
import java.util.List;

/** One request's call to the authorization service, over HTTP ({@link ExtAuthzCheck}) or gRPC ({@link GrpcAuthzCheck}). */
interface AuthzCheck {

  /**
   * Starts the check; the verdict reaches the request later, or inline when it fails at once.
   *
   * @param body the buffered request body (at most {@code max_request_bytes}, the caller keeps it),
   *     or null without {@code with_request_body}
   * @param partial whether the body is only the first {@code max_request_bytes} of a longer one
   */
  void start(ByteBuf body, boolean partial);

  /** The request went away (client disconnect, timeout) mid-check: abandon the call, release once. */
  void cancel();

  /** Where the verdict goes: the request's ext_authz filter. */
  interface Verdict {
    /** Through to the next filter; {@code responseHeaders} change the client's response (empty: none). */
    void onAuthzAllowed(List<AuthzHeader> responseHeaders);

    /** The check answers the request itself. */
    void onAuthzReply(int status, HttpHeaders headers, ByteBuf body, ResponseFlag flag);
  }
}
