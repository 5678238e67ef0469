package io.spillway.edge.authz.grpc;

import static org.assertj.core.api.Assertions.assertThat;

import com.google.protobuf.BoolValue;
import com.google.protobuf.ByteString;
import com.google.rpc.Status;
import io.envoyproxy.envoy.config.core.v3.HeaderValue;
import io.envoyproxy.envoy.config.core.v3.HeaderValueOption;
import io.envoyproxy.envoy.config.core.v3.HeaderValueOption.HeaderAppendAction;
import io.envoyproxy.envoy.config.core.v3.QueryParameter;
import io.envoyproxy.envoy.service.auth.v3.AttributeContext;
import io.envoyproxy.envoy.service.auth.v3.CheckRequest;
import io.envoyproxy.envoy.service.auth.v3.CheckResponse;
import io.envoyproxy.envoy.service.auth.v3.DeniedHttpResponse;
import io.envoyproxy.envoy.service.auth.v3.OkHttpResponse;
import io.envoyproxy.envoy.type.v3.HttpStatus;
import io.envoyproxy.envoy.type.v3.StatusCode;
import io.spillway.edge.authz.AuthzAnswer;
import io.spillway.edge.authz.AuthzHeader;
import io.spillway.edge.authz.AuthzHeader.Action;
import io.spillway.edge.authz.AuthzRequest;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.util.LinkedHashMap;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** A check's {@code CheckRequest} as Envoy builds it, and a {@code CheckResponse} as Envoy reads it. */
class CheckMessagesTest {

  private static AuthzRequest request(byte[] body, boolean packAsBytes) {
    Map<String, String> headers = new LinkedHashMap<>();
    headers.put(":method", "POST");
    headers.put("x-tag", "a,b");
    return new AuthzRequest(new InetSocketAddress("10.0.0.7", 5555), "frontend",
        new InetSocketAddress("10.0.0.1", 8080), 1_700_000_000_123_000_000L, "42", "POST", "/cart?id=1",
        "shop.example", "https", "HTTP/2", 11, headers, body, packAsBytes, Map.of("tier", "gold"));
  }

  @Test
  void theRequestsAttributes() {
    CheckRequest check = CheckRequests.of(request("hello world".getBytes(StandardCharsets.UTF_8), false));
    AttributeContext a = check.getAttributes();
    assertThat(a.getSource().getAddress().getSocketAddress().getAddress()).isEqualTo("10.0.0.7");
    assertThat(a.getSource().getAddress().getSocketAddress().getPortValue()).isEqualTo(5555);
    assertThat(a.getSource().getService()).isEqualTo("frontend");
    assertThat(a.getDestination().getAddress().getSocketAddress().getAddress()).isEqualTo("10.0.0.1");
    assertThat(a.getDestination().getAddress().getSocketAddress().getPortValue()).isEqualTo(8080);
    assertThat(a.getDestination().getService()).isEmpty();
    assertThat(a.getRequest().getTime().getSeconds()).isEqualTo(1_700_000_000L);
    assertThat(a.getRequest().getTime().getNanos()).isEqualTo(123_000_000);
    assertThat(a.getContextExtensionsMap()).containsExactly(Map.entry("tier", "gold"));
    AttributeContext.HttpRequest http = a.getRequest().getHttp();
    assertThat(http.getId()).isEqualTo("42");
    assertThat(http.getMethod()).isEqualTo("POST");
    assertThat(http.getPath()).isEqualTo("/cart?id=1");
    assertThat(http.getQuery()).as("Envoy leaves query empty").isEmpty();
    assertThat(http.getHost()).isEqualTo("shop.example");
    assertThat(http.getScheme()).isEqualTo("https");
    assertThat(http.getProtocol()).isEqualTo("HTTP/2");
    assertThat(http.getSize()).isEqualTo(11);
    assertThat(http.getHeadersMap()).containsEntry(":method", "POST").containsEntry("x-tag", "a,b");
    assertThat(http.getBody()).isEqualTo("hello world");
    assertThat(http.getRawBody().isEmpty()).isTrue();
  }

  @Test
  void packAsBytesUsesRawBodyAndNoBodyLeavesBoth() {
    byte[] binary = {0, (byte) 0xff, 1};
    AttributeContext.HttpRequest packed = CheckRequests.of(request(binary, true)).getAttributes().getRequest().getHttp();
    assertThat(packed.getRawBody()).isEqualTo(ByteString.copyFrom(binary));
    assertThat(packed.getBody()).isEmpty();
    AttributeContext.HttpRequest none = CheckRequests.of(request(null, false)).getAttributes().getRequest().getHttp();
    assertThat(none.getBody()).isEmpty();
    assertThat(none.getRawBody().isEmpty()).isTrue();
  }

  @SuppressWarnings("deprecation")
  private static HeaderValueOption append(String key, String value, boolean append) {
    return HeaderValueOption.newBuilder().setHeader(HeaderValue.newBuilder().setKey(key).setValue(value))
        .setAppend(BoolValue.of(append)).build();
  }

  private static HeaderValueOption action(String key, String value, HeaderAppendAction action) {
    return HeaderValueOption.newBuilder().setHeader(HeaderValue.newBuilder().setKey(key).setValue(value))
        .setAppendAction(action).build();
  }

  @Test
  void anOkAnswerWithEveryKindOfChange() {
    AuthzAnswer answer = CheckResponses.answer(CheckResponse.newBuilder()
        .setStatus(Status.newBuilder().setCode(0))
        .setOkResponse(OkHttpResponse.newBuilder()
            .addHeaders(append("X-A", "1", true))
            .addHeaders(append("x-b", "2", false))
            .addHeaders(action("x-c", "3", HeaderAppendAction.APPEND_IF_EXISTS_OR_ADD))
            .addHeaders(action("x-d", "4", HeaderAppendAction.ADD_IF_ABSENT))
            .addHeaders(action("x-e", "5", HeaderAppendAction.OVERWRITE_IF_EXISTS))
            .addHeaders(action("x-f", "6", HeaderAppendAction.OVERWRITE_IF_EXISTS_OR_ADD))
            .addHeaders(HeaderValueOption.newBuilder().setHeader(HeaderValue.newBuilder().setKey("x-raw")
                .setRawValue(ByteString.copyFromUtf8("bytes"))))
            .addHeadersToRemove("X-Gone")
            .addResponseHeadersToAdd(append("x-resp", "r", false))
            .addQueryParametersToSet(QueryParameter.newBuilder().setKey("k").setValue("v"))
            .addQueryParametersToRemove("drop"))
        .build());
    assertThat(answer.verdict()).isEqualTo(AuthzAnswer.Verdict.OK);
    assertThat(answer.requestHeaders()).containsExactly(
        new AuthzHeader("x-a", "1", Action.APPEND_TO_VALUE),
        new AuthzHeader("x-b", "2", Action.OVERWRITE),
        new AuthzHeader("x-c", "3", Action.ADD),
        new AuthzHeader("x-d", "4", Action.ADD_IF_ABSENT),
        new AuthzHeader("x-e", "5", Action.OVERWRITE_IF_EXISTS),
        new AuthzHeader("x-f", "6", Action.OVERWRITE),
        new AuthzHeader("x-raw", "bytes", Action.ADD));
    assertThat(answer.requestHeadersToRemove()).containsExactly("x-gone");
    assertThat(answer.responseHeaders()).containsExactly(new AuthzHeader("x-resp", "r", Action.OVERWRITE));
    assertThat(answer.queryParametersToSet()).containsExactly(new AuthzAnswer.QueryParameter("k", "v"));
    assertThat(answer.queryParametersToRemove()).containsExactly("drop");
  }

  @Test
  void anOkStatusWithoutOkResponseAllowsAsIs() {
    AuthzAnswer answer = CheckResponses.answer(CheckResponse.getDefaultInstance());
    assertThat(answer.verdict()).isEqualTo(AuthzAnswer.Verdict.OK);
    assertThat(answer.requestHeaders()).isEmpty();
  }

  @Test
  void anyOtherStatusDenies() {
    AuthzAnswer denied = CheckResponses.answer(CheckResponse.newBuilder()
        .setStatus(Status.newBuilder().setCode(7))
        .setDeniedResponse(DeniedHttpResponse.newBuilder()
            .setStatus(HttpStatus.newBuilder().setCode(StatusCode.TooManyRequests))
            .addHeaders(append("Retry-After", "5", false))
            .setBody("slow down"))
        .build());
    assertThat(denied.verdict()).isEqualTo(AuthzAnswer.Verdict.DENIED);
    assertThat(denied.deniedStatus()).isEqualTo(429);
    assertThat(denied.deniedHeaders()).containsExactly(new AuthzHeader("retry-after", "5", Action.OVERWRITE));
    assertThat(denied.deniedBody()).isEqualTo("slow down");

    AuthzAnswer bare = CheckResponses.answer(CheckResponse.newBuilder().setStatus(Status.newBuilder().setCode(16)).build());
    assertThat(bare.verdict()).isEqualTo(AuthzAnswer.Verdict.DENIED);
    assertThat(bare.deniedStatus()).isEqualTo(403);
    assertThat(bare.deniedBody()).isEmpty();
  }
}
