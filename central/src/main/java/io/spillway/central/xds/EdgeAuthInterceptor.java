package io.spillway.central.xds;

import io.grpc.Context;
import io.grpc.Contexts;
import io.grpc.Grpc;
import io.grpc.Metadata;
import io.grpc.MethodDescriptor;
import io.grpc.ServerCall;
import io.grpc.ServerCallHandler;
import io.grpc.ServerInterceptor;
import io.grpc.Status;
import java.util.Objects;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * First half of edge authentication: a stream must carry {@code authorization: Bearer <credential>}
 * (the edge's bootstrap puts it in the ADS GrpcService's {@code initial_metadata}, as Envoy does);
 * without it the call ends at once with {@code UNAUTHENTICATED}. The credential travels on in the
 * gRPC {@link Context} ({@link #CREDENTIAL}); the stream compares it with the registered edge named
 * by the first request's node id (the metadata does not carry the node), see {@link AdsStream}.
 */
final class EdgeAuthInterceptor implements ServerInterceptor {

  private static final Logger log = LoggerFactory.getLogger(EdgeAuthInterceptor.class);

  /** The presented credential, for the stream. */
  static final Context.Key<String> CREDENTIAL = Context.key("spillway-edge-credential");

  private static final Metadata.Key<String> AUTHORIZATION = Metadata.Key.of("authorization", Metadata.ASCII_STRING_MARSHALLER);
  private static final String BEARER = "bearer ";

  private final XdsMetrics metrics;

  EdgeAuthInterceptor(XdsMetrics metrics) {
    this.metrics = Objects.requireNonNull(metrics, "metrics");
  }

  @Override
  public <Q, R> ServerCall.Listener<Q> interceptCall(ServerCall<Q, R> call, Metadata headers, ServerCallHandler<Q, R> next) {
    String credential = bearer(headers.get(AUTHORIZATION));
    if (credential == null) {
      metrics.authFailure(XdsMetrics.AuthFailure.MISSING_CREDENTIAL);
      if (call.getMethodDescriptor().getType() == MethodDescriptor.MethodType.UNARY) {
        // one per request (the rate limit service): counted, not logged at warn
        log.debug("refused a {} call from {}: no 'authorization: Bearer <edge credential>' metadata",
            call.getMethodDescriptor().getFullMethodName(), call.getAttributes().get(Grpc.TRANSPORT_ATTR_REMOTE_ADDR));
      } else {
        log.warn("refused a {} stream from {}: no 'authorization: Bearer <edge credential>' metadata",
            call.getMethodDescriptor().getFullMethodName(), call.getAttributes().get(Grpc.TRANSPORT_ATTR_REMOTE_ADDR));
      }
      call.close(Status.UNAUTHENTICATED.withDescription(
          "missing credential: send the edge's credential as gRPC metadata 'authorization: Bearer <credential>'"), new Metadata());
      return new ServerCall.Listener<>() {};
    }
    return Contexts.interceptCall(Context.current().withValue(CREDENTIAL, credential), call, headers, next);
  }

  /** The credential of a {@code Bearer} header value, or null when there is none. */
  static String bearer(String header) {
    if (header == null || header.length() <= BEARER.length()
        || !header.regionMatches(true, 0, BEARER, 0, BEARER.length())) {
      return null;
    }
    String credential = header.substring(BEARER.length()).trim();
    return credential.isEmpty() ? null : credential;
  }
}
