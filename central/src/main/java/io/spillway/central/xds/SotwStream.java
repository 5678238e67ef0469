package io.spillway.central.xds;

import com.google.protobuf.Any;
import com.google.protobuf.Message;
import io.envoyproxy.envoy.service.discovery.v3.DiscoveryRequest;
import io.envoyproxy.envoy.service.discovery.v3.DiscoveryResponse;
import io.envoyproxy.envoy.service.discovery.v3.Resource;
import io.grpc.stub.StreamObserver;
import java.util.LinkedHashSet;
import java.util.Map;
import java.util.Set;

/**
 * A State-of-the-World ADS stream ({@code StreamAggregatedResources}).
 *
 * <p>A request without a response nonce is a (re)subscription and gets the current set even when
 * its {@code version_info} says the client has it; so does a request that changes the resource
 * names. A request with the nonce of the response awaiting an answer is its ACK, or its NACK when
 * {@code error_detail} is set; a request with an older nonce only updates the names. Clusters,
 * listeners and the policy are wildcard types: every response carries the full set, so what it
 * leaves out is removed. Endpoints and routes carry the requested names that exist; runtime layers
 * carry every requested name, an empty layer for one central holds nothing for.
 */
final class SotwStream extends AdsStream implements StreamObserver<DiscoveryRequest> {

  private final StreamObserver<DiscoveryResponse> responses;

  SotwStream(XdsServer.Context context, String credential, StreamObserver<DiscoveryResponse> responses) {
    super(context, credential, responses);
    this.responses = responses;
  }

  @Override
  String variant() {
    return "SotW";
  }

  @Override
  public synchronized void onNext(DiscoveryRequest request) {
    TypeState state = typeOf(request.getNode(), request.getTypeUrl());
    if (state == null) {
      return;
    }
    Set<String> names = new LinkedHashSet<>(request.getResourceNamesList());
    boolean wildcard = names.remove(WILDCARD) || (!state.type.named() && names.isEmpty());
    boolean namesChanged = !state.subscribed || wildcard != state.wildcard || !names.equals(state.names);
    String nonce = request.getResponseNonce();
    if (nonce.isEmpty()) {
      state.force = true;
      state.awaitingNonce = null;
    } else if (nonce.equals(state.awaitingNonce)) {
      if (request.hasErrorDetail()) {
        nacked(state, request.getErrorDetail().getMessage());
      } else {
        acked(state);
      }
    }
    if (namesChanged) {
      state.force = true;
    }
    state.subscribed = true;
    state.wildcard = wildcard;
    state.names = names;
    sendDue();
  }

  @Override
  boolean differs(TypeState state, TypeResources current) {
    return state.force || !current.version().equals(state.sentVersion);
  }

  @Override
  String send(TypeState state, TypeResources current, String nonce) {
    DiscoveryResponse.Builder response = DiscoveryResponse.newBuilder()
        .setControlPlane(CONTROL_PLANE)
        .setTypeUrl(state.type.typeUrl())
        .setVersionInfo(current.version())
        .setNonce(nonce);
    for (Map.Entry<String, Message> resource : current.resources().entrySet()) {
      if (!state.wants(resource.getKey())) {
        continue;
      }
      Any body = Any.pack(resource.getValue());
      if (state.type == XdsType.OVERLOAD_POLICY) {
        // The policy has no name of its own: the Resource wrapper names it.
        body = Any.pack(Resource.newBuilder().setName(resource.getKey()).setVersion(current.version()).setResource(body).build());
      }
      response.addResources(body);
    }
    responses.onNext(response.build());
    return nonce;
  }

}
