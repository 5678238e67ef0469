package io.spillway.edge.authz.grpc;

import io.envoyproxy.envoy.config.core.v3.HeaderValueOption;
import io.envoyproxy.envoy.service.auth.v3.CheckResponse;
import io.envoyproxy.envoy.service.auth.v3.DeniedHttpResponse;
import io.envoyproxy.envoy.service.auth.v3.OkHttpResponse;
import io.envoyproxy.envoy.config.core.v3.QueryParameter;
import io.spillway.edge.authz.AuthzAnswer;
import io.spillway.edge.authz.AuthzHeader;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;

/**
 * A {@code CheckResponse} as Envoy's ext_authz reads it ({@code GrpcClientImpl::onSuccess}): gRPC
 * status {@code OK} (code 0) allows, with {@code ok_response}'s changes; any other code denies,
 * with {@code denied_response}'s status (403 when unset), headers and body. A header option's
 * deprecated {@code append} wins over {@code append_action} when set ({@code true}: joined to an
 * existing value); an unknown {@code append_action} overwrites, as in Envoy.
 */
final class CheckResponses {

  private CheckResponses() {}

  static AuthzAnswer answer(CheckResponse response) {
    if (response.getStatus().getCode() == 0) {
      OkHttpResponse ok = response.getOkResponse();
      List<AuthzAnswer.QueryParameter> set = new ArrayList<>(ok.getQueryParametersToSetCount());
      for (QueryParameter p : ok.getQueryParametersToSetList()) {
        set.add(new AuthzAnswer.QueryParameter(p.getKey(), p.getValue()));
      }
      List<String> remove = new ArrayList<>(ok.getHeadersToRemoveCount());
      for (String name : ok.getHeadersToRemoveList()) {
        remove.add(name.toLowerCase(Locale.ROOT));
      }
      return new AuthzAnswer(AuthzAnswer.Verdict.OK, headers(ok.getHeadersList()), remove,
          headers(ok.getResponseHeadersToAddList()), set, ok.getQueryParametersToRemoveList(), 0, List.of(), "", "", false);
    }
    DeniedHttpResponse denied = response.getDeniedResponse();
    int status = denied.hasStatus() && denied.getStatus().getCodeValue() > 0
        ? denied.getStatus().getCodeValue() : AuthzAnswer.DEFAULT_DENIED_STATUS;
    return new AuthzAnswer(AuthzAnswer.Verdict.DENIED, List.of(), List.of(), List.of(), List.of(), List.of(), status,
        headers(denied.getHeadersList()), denied.getBody(), "", false);
  }

  @SuppressWarnings("deprecation") // HeaderValueOption.append: deprecated, still read by Envoy
  private static List<AuthzHeader> headers(List<HeaderValueOption> options) {
    List<AuthzHeader> out = new ArrayList<>(options.size());
    for (HeaderValueOption o : options) {
      AuthzHeader.Action action;
      if (o.hasAppend()) {
        action = o.getAppend().getValue() ? AuthzHeader.Action.APPEND_TO_VALUE : AuthzHeader.Action.OVERWRITE;
      } else {
        action = switch (o.getAppendAction()) {
          case APPEND_IF_EXISTS_OR_ADD -> AuthzHeader.Action.ADD;
          case ADD_IF_ABSENT -> AuthzHeader.Action.ADD_IF_ABSENT;
          case OVERWRITE_IF_EXISTS -> AuthzHeader.Action.OVERWRITE_IF_EXISTS;
          case OVERWRITE_IF_EXISTS_OR_ADD, UNRECOGNIZED -> AuthzHeader.Action.OVERWRITE;
        };
      }
      var header = o.getHeader();
      String value = header.getValue().isEmpty() && !header.getRawValue().isEmpty()
          ? header.getRawValue().toStringUtf8() : header.getValue();
      out.add(new AuthzHeader(header.getKey().toLowerCase(Locale.ROOT), value, action));
    }
    return out;
  }
}
