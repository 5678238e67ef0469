package io.spillway.central.xds;

import com.google.protobuf.Any;
import io.envoyproxy.envoy.service.discovery.v3.DeltaDiscoveryRequest;
import io.envoyproxy.envoy.service.discovery.v3.DeltaDiscoveryResponse;
import io.envoyproxy.envoy.service.discovery.v3.Resource;
import io.grpc.stub.StreamObserver;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * A Delta (incremental) ADS stream ({@code DeltaAggregatedResources}). Each resource's version is
 * a hash of its serialized form; the stream knows which versions the client holds (its
 * {@code initial_resource_versions} on a new stream, then every ACKed response) and sends only
 * the resources that differ, with the names that went away in {@code removed_resources}. A NACKed
 * response leaves the client's versions as they were.
 */
final class DeltaStream extends AdsStream implements StreamObserver<DeltaDiscoveryRequest> {

  private final StreamObserver<DeltaDiscoveryResponse> responses;

  DeltaStream(XdsServer.Context context, String credential, StreamObserver<DeltaDiscoveryResponse> responses) {
    super(context, credential, responses);
    this.responses = responses;
  }

  @Override
  String variant() {
    return "Delta";
  }

  @Override
  public synchronized void onNext(DeltaDiscoveryRequest request) {
    TypeState state = typeOf(request.getNode(), request.getTypeUrl());
    if (state == null) {
      return;
    }
    if (!state.subscribed) {
      state.subscribed = true;
      state.names.addAll(request.getResourceNamesSubscribeList());
      state.wildcard = state.names.remove(WILDCARD) || (!state.type.named() && state.names.isEmpty());
      state.known = new HashMap<>(request.getInitialResourceVersionsMap());
      state.force = true; // a first answer even when there is nothing, so the client's first round completes
    } else {
      for (String name : request.getResourceNamesSubscribeList()) {
        if (WILDCARD.equals(name)) {
          state.wildcard = true;
        } else {
          state.names.add(name);
        }
      }
      for (String name : request.getResourceNamesUnsubscribeList()) {
        if (WILDCARD.equals(name)) {
          state.wildcard = false;
        } else {
          state.names.remove(name);
          state.known.remove(name); // the client dropped it
        }
      }
    }
    String nonce = request.getResponseNonce();
    if (!nonce.isEmpty() && nonce.equals(state.awaitingNonce)) {
      if (request.hasErrorDetail()) {
        state.inflight = null;
        nacked(state, request.getErrorDetail().getMessage());
      } else {
        state.known = state.inflight;
        state.inflight = null;
        acked(state);
      }
    }
    sendDue();
  }

  /**
   * Name → version of what the client should hold of the current set: the snapshot's hashes, and
   * the hash of what only this stream serves (an empty runtime layer, {@link #current}).
   */
  private Map<String, String> desired(TypeState state, TypeResources current) {
    Map<String, String> hashes = snapshot.hashes(state.type);
    Map<String, String> desired = new LinkedHashMap<>();
    current.resources().forEach((name, message) -> {
      if (state.wants(name)) {
        String version = hashes.get(name);
        desired.put(name, version != null ? version : EdgeSnapshot.hash(message));
      }
    });
    return desired;
  }

  @Override
  boolean differs(TypeState state, TypeResources current) {
    return state.force || !desired(state, current).equals(state.known);
  }

  @Override
  String send(TypeState state, TypeResources current, String nonce) {
    Map<String, String> desired = desired(state, current);
    DeltaDiscoveryResponse.Builder response = DeltaDiscoveryResponse.newBuilder()
        .setControlPlane(CONTROL_PLANE)
        .setTypeUrl(state.type.typeUrl())
        .setSystemVersionInfo(current.version())
        .setNonce(nonce);
    desired.forEach((name, version) -> {
      if (!version.equals(state.known.get(name))) {
        response.addResources(Resource.newBuilder().setName(name).setVersion(version)
            .setResource(Any.pack(current.resources().get(name))));
      }
    });
    List<String> removed = state.known.keySet().stream().filter(name -> !desired.containsKey(name)).sorted().toList();
    response.addAllRemovedResources(removed);
    state.inflight = desired;
    responses.onNext(response.build());
    return nonce;
  }

}
