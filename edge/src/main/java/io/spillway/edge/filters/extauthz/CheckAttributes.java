package io.spillway.edge.filters.extauthz;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufUtil;
import io.spillway.edge.authz.AuthzRequest;
import io.spillway.edge.http.filter.StreamFilterCallbacks;
import io.spillway.edge.http.filter.StreamInfo;
import io.spillway.edge.http.message.RequestHeaders;
import java.util.LinkedHashMap;
import java.util.Locale;
import java.util.Map;

/**
 * What a gRPC check says about the request (Envoy's {@code CheckRequestUtils::setHttpRequest}):
 * the request's headers with lower-case names — the pseudo-headers {@code :authority},
 * {@code :method}, {@code :path} and {@code :scheme} first, as Envoy's header map has them —
 * repeated ones joined with {@code ,}, only those {@code allowed_headers} matches when it is set;
 * a client's own {@code x-envoy-auth-partial-body} never, the edge's when the body is sent.
 */
final class CheckAttributes {

  static final String PARTIAL_BODY_HEADER = "x-envoy-auth-partial-body";

  private CheckAttributes() {}

  static AuthzRequest of(ExtAuthzFactory factory, StreamFilterCallbacks stream, RequestHeaders request, ByteBuf body,
      boolean partial) {
    Map<String, String> headers = new LinkedHashMap<>();
    put(factory, headers, ":authority", request.authority());
    put(factory, headers, ":method", request.method());
    put(factory, headers, ":path", request.pathAndQuery());
    put(factory, headers, ":scheme", request.scheme());
    for (Map.Entry<String, String> h : request.headers()) {
      String name = h.getKey().toLowerCase(Locale.ROOT);
      if (!name.equals(PARTIAL_BODY_HEADER)) {
        put(factory, headers, name, h.getValue());
      }
    }
    byte[] bytes = null;
    if (body != null) {
      bytes = ByteBufUtil.getBytes(body, body.readerIndex(), body.readableBytes(), false);
      headers.put(PARTIAL_BODY_HEADER, partial ? "true" : "false");
    }
    StreamInfo info = stream.streamInfo();
    String service = request.header("x-envoy-downstream-service-cluster");
    return new AuthzRequest(info.downstreamRemote(), service == null ? "" : service, info.downstreamLocal(),
        info.startEpochNanos(), Long.toUnsignedString(stream.worker().random().nextLong()), request.method(),
        request.pathAndQuery(), request.authority() == null ? "" : request.authority(),
        request.scheme() == null ? "" : request.scheme(), info.isHttp2() ? "HTTP/2" : "HTTP/1.1",
        info.bytesReceived(), headers, bytes, factory.config().requestBody().map(b -> b.packAsBytes()).orElse(false),
        Map.of());
  }

  private static void put(ExtAuthzFactory factory, Map<String, String> headers, String name, String value) {
    if (value == null || !factory.sendsRequestHeader(name)) {
      return;
    }
    headers.merge(name, value, (a, b) -> a + "," + b);
  }
}
