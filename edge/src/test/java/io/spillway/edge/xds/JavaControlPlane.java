package io.spillway.edge.xds;

import io.envoyproxy.controlplane.cache.v3.SimpleCache;
import io.envoyproxy.controlplane.server.DiscoveryServerCallbacks;
import io.envoyproxy.controlplane.server.V3DiscoveryServer;
import io.envoyproxy.envoy.service.discovery.v3.DeltaDiscoveryRequest;
import io.envoyproxy.envoy.service.discovery.v3.DiscoveryRequest;
import io.grpc.Server;
import io.grpc.netty.shaded.io.grpc.netty.NettyServerBuilder;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.util.List;

/** java-control-plane's ADS server (State of the World) on a free port of 127.0.0.1, for the tests. */
public final class JavaControlPlane {

  private JavaControlPlane() {}

  /** Serves {@code cache}; every request a client sends is added to {@code requests}. */
  public static Server start(SimpleCache<String> cache, List<DiscoveryRequest> requests) throws IOException {
    return start(cache, requests, new java.util.concurrent.CopyOnWriteArrayList<>());
  }

  /**
   * Serves {@code cache}; every request a client sends is added to {@code requests}, and every
   * stream's opening and end to {@code streamEvents} ({@code "open <id>"}, {@code "close <id>"},
   * {@code "error <id> <message>"}).
   */
  public static Server start(SimpleCache<String> cache, List<DiscoveryRequest> requests, List<String> streamEvents)
      throws IOException {
    DiscoveryServerCallbacks callbacks = new DiscoveryServerCallbacks() {
      @Override
      public void onStreamOpen(long streamId, String typeUrl) {
        streamEvents.add("open " + streamId);
      }

      @Override
      public void onStreamClose(long streamId, String typeUrl) {
        streamEvents.add("close " + streamId);
      }

      @Override
      public void onStreamCloseWithError(long streamId, String typeUrl, Throwable error) {
        streamEvents.add("error " + streamId + " " + error.getMessage());
      }

      @Override
      public void onV3StreamRequest(long streamId, DiscoveryRequest request) {
        requests.add(request);
      }

      @Override
      public void onV3StreamDeltaRequest(long streamId, DeltaDiscoveryRequest request) {}
    };
    return NettyServerBuilder.forAddress(new InetSocketAddress("127.0.0.1", 0))
        .addService(new V3DiscoveryServer(callbacks, cache).getAggregatedDiscoveryServiceImpl())
        .build()
        .start();
  }
}
