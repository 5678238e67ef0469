package io.spillway.edge.filters.router;

import io.netty.buffer.ByteBuf;
import io.netty.handler.codec.http.HttpHeaders;
import io.spillway.edge.config.Route;
import io.spillway.edge.http.filter.DecoderFilterCallbacks;
import io.spillway.edge.http.message.RequestHeaders;
import io.spillway.edge.upstream.Cluster;
import java.util.List;

/**
 * A request's copies for its route's {@code request_mirror_policies} (Envoy's shadowing), one
 * {@link ShadowRequest} per policy that applies: its cluster named, or named by the first value of
 * its {@code cluster_header} (no header, or a cluster the edge does not have: no copy, as in Envoy),
 * and its {@code runtime_fraction} drawn. The router hands on what it forwards; the copies never
 * hold the request back.
 */
final class RequestMirrors {
  private final ShadowRequest[] shadows;

  private RequestMirrors(ShadowRequest[] shadows) {
    this.shadows = shadows;
  }

  /**
   * Starts the copies of a request the router forwards, its head final (the route's rewrites and
   * header changes applied); null when no policy applies.
   */
  static RequestMirrors start(List<Route.MirrorPolicy> policies, RequestHeaders request, boolean endStream,
      RouterFactory factory, DecoderFilterCallbacks callbacks, long timeoutNanos) {
    ShadowRequest[] started = null;
    int n = 0;
    for (Route.MirrorPolicy policy : policies) {
      String name = policy.clusterHeader().isEmpty() ? policy.cluster() : request.headers().get(policy.clusterHeader());
      Cluster cluster = name == null ? null : factory.context().clusters().get(name);
      if (cluster == null || !sampled(policy, factory, callbacks)) {
        continue;
      }
      RequestHeaders copy = new RequestHeaders(request.method(), request.scheme(),
          policy.appendShadowSuffix() ? ShadowRequest.shadowAuthority(request.authority()) : request.authority(),
          request.pathAndQuery(), request.headers().copy());
      ShadowRequest shadow = new ShadowRequest(cluster,
          factory.context().guards() == null ? null : factory.context().guards().guard(cluster.name()),
          callbacks.worker(), copy, callbacks.decoderBufferLimit(), timeoutNanos, callbacks.activeSpan());
      if (started == null) {
        started = new ShadowRequest[policies.size()];
      }
      started[n++] = shadow;
      shadow.start(endStream);
    }
    return started == null ? null : new RequestMirrors(java.util.Arrays.copyOf(started, n));
  }

  private static boolean sampled(Route.MirrorPolicy policy, RouterFactory factory, DecoderFilterCallbacks callbacks) {
    if (policy.fraction().equals(io.spillway.edge.config.RuntimeFraction.ALWAYS)) {
      return true;
    }
    return factory.context().runtime().snapshot().featureEnabled(policy.fraction(), callbacks.worker().random());
  }

  /** A body part the router forwards; each copy gets its own retained view of it. */
  void onData(ByteBuf part, boolean endStream) {
    for (ShadowRequest s : shadows) {
      s.onData(part.retainedDuplicate(), endStream);
    }
  }

  void onTrailers(HttpHeaders trailers) {
    for (ShadowRequest s : shadows) {
      s.onTrailers(trailers.copy());
    }
  }

  void onRequestDestroyed() {
    for (ShadowRequest s : shadows) {
      s.onRequestDestroyed();
    }
  }
}
