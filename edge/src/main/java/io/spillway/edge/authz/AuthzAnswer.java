package io.spillway.edge.authz;

import java.util.List;

/**
 * An authorization service's answer to one check, as Envoy's ext_authz reads a
 * {@code CheckResponse} ({@code ext_authz_grpc_impl.cc}).
 *
 * @param verdict OK, DENIED, or ERROR (the call failed: transport error, deadline, bad answer)
 * @param requestHeaders OK: changes to the request's headers ({@code ok_response.headers})
 * @param requestHeadersToRemove OK: {@code ok_response.headers_to_remove}, lower case
 * @param responseHeaders OK: changes to the response's headers ({@code ok_response.response_headers_to_add})
 * @param queryParametersToSet OK: {@code ok_response.query_parameters_to_set}, in order
 * @param queryParametersToRemove OK: {@code ok_response.query_parameters_to_remove}
 * @param deniedStatus DENIED: {@code denied_response.status} (403 when unset)
 * @param deniedHeaders DENIED: {@code denied_response.headers}, the local reply's
 * @param deniedBody DENIED: {@code denied_response.body}
 * @param error ERROR: what failed, for debugging
 * @param timedOut ERROR: the call's deadline passed (else the service failed or was unreachable)
 */
public record AuthzAnswer(
    Verdict verdict,
    List<AuthzHeader> requestHeaders,
    List<String> requestHeadersToRemove,
    List<AuthzHeader> responseHeaders,
    List<QueryParameter> queryParametersToSet,
    List<String> queryParametersToRemove,
    int deniedStatus,
    List<AuthzHeader> deniedHeaders,
    String deniedBody,
    String error,
    boolean timedOut) {

  /** The default status of a denial: 403 Forbidden. */
  public static final int DEFAULT_DENIED_STATUS = 403;

  public AuthzAnswer {
    requestHeaders = List.copyOf(requestHeaders);
    requestHeadersToRemove = List.copyOf(requestHeadersToRemove);
    responseHeaders = List.copyOf(responseHeaders);
    queryParametersToSet = List.copyOf(queryParametersToSet);
    queryParametersToRemove = List.copyOf(queryParametersToRemove);
    deniedHeaders = List.copyOf(deniedHeaders);
  }

  /** The verdict of a check. */
  public enum Verdict { OK, DENIED, ERROR }

  /** A query parameter to set. */
  public record QueryParameter(String key, String value) {}

  /** The call failed; {@code timedOut}: its deadline passed. */
  public static AuthzAnswer error(String detail, boolean timedOut) {
    return new AuthzAnswer(Verdict.ERROR, List.of(), List.of(), List.of(), List.of(), List.of(), 0, List.of(), "",
        detail, timedOut);
  }
}
