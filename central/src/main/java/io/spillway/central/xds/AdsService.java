package io.spillway.central.xds;

import io.envoyproxy.envoy.service.discovery.v3.AggregatedDiscoveryServiceGrpc;
import io.envoyproxy.envoy.service.discovery.v3.DeltaDiscoveryRequest;
import io.envoyproxy.envoy.service.discovery.v3.DeltaDiscoveryResponse;
import io.envoyproxy.envoy.service.discovery.v3.DiscoveryRequest;
import io.envoyproxy.envoy.service.discovery.v3.DiscoveryResponse;
import io.grpc.stub.StreamObserver;

/** Envoy's aggregated discovery service: each call becomes one {@link SotwStream} or {@link DeltaStream}. */
final class AdsService extends AggregatedDiscoveryServiceGrpc.AggregatedDiscoveryServiceImplBase {

  private final XdsServer.Context context;

  AdsService(XdsServer.Context context) {
    this.context = context;
  }

  @Override
  public StreamObserver<DiscoveryRequest> streamAggregatedResources(StreamObserver<DiscoveryResponse> responses) {
    return new SotwStream(context, EdgeAuthInterceptor.CREDENTIAL.get(), responses);
  }

  @Override
  public StreamObserver<DeltaDiscoveryRequest> deltaAggregatedResources(StreamObserver<DeltaDiscoveryResponse> responses) {
    return new DeltaStream(context, EdgeAuthInterceptor.CREDENTIAL.get(), responses);
  }
}
