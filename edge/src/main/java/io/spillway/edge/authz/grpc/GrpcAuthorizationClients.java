package io.spillway.edge.authz.grpc;

import io.envoyproxy.envoy.service.auth.v3.AuthorizationGrpc;
import io.grpc.Channel;
import io.spillway.edge.authz.AuthorizationClient;
import io.spillway.edge.authz.AuthorizationClients;
import io.spillway.edge.authz.AuthzAnswer;
import io.spillway.edge.config.ExtAuthzConfig;
import io.spillway.edge.config.GrpcServiceConfig;
import io.spillway.edge.grpc.GrpcChannels;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;

/**
 * The edge's gRPC authorization clients: each ext_authz filter with a {@code grpc_service} gets the
 * shared channel of its cluster and {@code :authority} from {@link GrpcChannels} when its connection
 * manager is built (control side); each check is one {@code Authorization/Check} call there, its
 * answer back on the request's worker.
 */
public final class GrpcAuthorizationClients implements AuthorizationClients {

  private final GrpcChannels channels;

  public GrpcAuthorizationClients(GrpcChannels channels) {
    this.channels = channels;
  }

  @Override
  public AuthorizationClient grpc(ExtAuthzConfig config) {
    String authority = config.uri().isEmpty() ? config.cluster() : config.uri();
    List<GrpcServiceConfig.Metadata> metadata = new ArrayList<>();
    for (ExtAuthzConfig.Header h : config.headersToAdd()) {
      metadata.add(new GrpcServiceConfig.Metadata(h.name(), h.value()));
    }
    Channel channel = channels.channel(new GrpcServiceConfig(config.cluster(), authority, Optional.empty(), metadata));
    return (request, timeout, loop, onAnswer) -> channels.unary(channel, AuthorizationGrpc.getCheckMethod(),
        () -> CheckRequests.of(request), CheckResponses::answer, AuthzAnswer::error, timeout, loop, onAnswer)::cancel;
  }
}
