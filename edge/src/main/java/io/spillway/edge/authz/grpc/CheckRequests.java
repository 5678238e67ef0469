package io.spillway.edge.authz.grpc;

import com.google.protobuf.ByteString;
import com.google.protobuf.Timestamp;
import io.envoyproxy.envoy.config.core.v3.Address;
import io.envoyproxy.envoy.config.core.v3.SocketAddress;
import io.envoyproxy.envoy.service.auth.v3.AttributeContext;
import io.envoyproxy.envoy.service.auth.v3.CheckRequest;
import io.spillway.edge.authz.AuthzRequest;
import java.net.InetSocketAddress;

/**
 * An {@link AuthzRequest} as Envoy's {@code envoy.service.auth.v3.CheckRequest}
 * ({@code CheckRequestUtils::createHttpCheck}): source and destination peers (address, and the
 * source's service from {@code x-envoy-downstream-service-cluster}), the request's time and its
 * HTTP attributes; {@code query} and {@code fragment} stay empty, as in Envoy (the query is in
 * {@code path}).
 */
final class CheckRequests {

  private CheckRequests() {}

  static CheckRequest of(AuthzRequest r) {
    AttributeContext.Peer.Builder source = peer(r.source());
    if (!r.sourceService().isEmpty()) {
      source.setService(r.sourceService());
    }
    AttributeContext.HttpRequest.Builder http = AttributeContext.HttpRequest.newBuilder()
        .setId(r.id())
        .setMethod(r.method())
        .setPath(r.path())
        .setHost(r.host())
        .setScheme(r.scheme())
        .setProtocol(r.protocol())
        .setSize(r.size())
        .putAllHeaders(r.headers());
    if (r.body() != null) {
      if (r.packAsBytes()) {
        http.setRawBody(ByteString.copyFrom(r.body()));
      } else {
        // Envoy copies the bytes into the string field as they are; proto3 strings must be UTF-8,
        // so a body that is not is carried with its invalid bytes replaced.
        http.setBody(new String(r.body(), java.nio.charset.StandardCharsets.UTF_8));
      }
    }
    AttributeContext.Request.Builder request = AttributeContext.Request.newBuilder().setHttp(http);
    if (r.startEpochNanos() > 0) {
      request.setTime(Timestamp.newBuilder()
          .setSeconds(Math.floorDiv(r.startEpochNanos(), 1_000_000_000L))
          .setNanos((int) Math.floorMod(r.startEpochNanos(), 1_000_000_000L)));
    }
    return CheckRequest.newBuilder().setAttributes(AttributeContext.newBuilder()
            .setSource(source)
            .setDestination(peer(r.destination()))
            .setRequest(request)
            .putAllContextExtensions(r.contextExtensions()))
        .build();
  }

  private static AttributeContext.Peer.Builder peer(InetSocketAddress address) {
    AttributeContext.Peer.Builder peer = AttributeContext.Peer.newBuilder();
    if (address != null) {
      String ip = address.getAddress() != null ? address.getAddress().getHostAddress() : address.getHostString();
      peer.setAddress(Address.newBuilder().setSocketAddress(
          SocketAddress.newBuilder().setAddress(ip).setPortValue(address.getPort())));
    }
    return peer;
  }
}
