package io.spillway.edge.rls.grpc;

import io.envoyproxy.envoy.service.ratelimit.v3.RateLimitServiceGrpc;
import io.grpc.Channel;
import io.spillway.edge.config.GrpcServiceConfig;
import io.spillway.edge.grpc.GrpcChannels;
import io.spillway.edge.rls.RateLimitAnswer;
import io.spillway.edge.rls.RateLimitClient;
import io.spillway.edge.rls.RateLimitClients;

/**
 * The edge's rate limit service clients: each global rate limit filter gets the shared channel of
 * its {@code rate_limit_service} cluster and {@code :authority} from {@link GrpcChannels} when its
 * connection manager is built (control side); each check is one
 * {@code envoy.service.ratelimit.v3.RateLimitService/ShouldRateLimit} call there, its answer back on
 * the request's worker.
 */
public final class GrpcRateLimitClients implements RateLimitClients {

  private final GrpcChannels channels;

  public GrpcRateLimitClients(GrpcChannels channels) {
    this.channels = channels;
  }

  @Override
  public RateLimitClient grpc(GrpcServiceConfig service) {
    Channel channel = channels.channel(service);
    return (request, timeout, loop, onAnswer) -> channels.unary(channel, RateLimitServiceGrpc.getShouldRateLimitMethod(),
        () -> RateLimitMessages.request(request), RateLimitMessages::answer, RateLimitAnswer::error, timeout, loop,
        onAnswer)::cancel;
  }
}
