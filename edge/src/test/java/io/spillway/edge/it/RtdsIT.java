package io.spillway.edge.it;

import static org.assertj.core.api.Assertions.assertThat;

import com.google.protobuf.Any;
import com.google.protobuf.Struct;
import com.google.protobuf.Value;
import io.envoyproxy.envoy.service.discovery.v3.AggregatedDiscoveryServiceGrpc;
import io.envoyproxy.envoy.service.discovery.v3.DiscoveryRequest;
import io.envoyproxy.envoy.service.discovery.v3.DiscoveryResponse;
import io.envoyproxy.envoy.service.runtime.v3.Runtime;
import io.grpc.Server;
import io.grpc.netty.shaded.io.grpc.netty.NettyServerBuilder;
import io.grpc.stub.StreamObserver;
import java.net.InetSocketAddress;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.Predicate;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * RTDS: an RTDS layer's runtime resource comes over the ADS stream (from a minimal State-of-the-World
 * server that answers clusters and listeners with empty sets), lands in the runtime, a bad one is
 * NACKed with the key it breaks while the layer keeps its values, and a new version replaces them.
 */
class RtdsIT {
  private static final String RTDS = "type.googleapis.com/envoy.service.runtime.v3.Runtime";

  private final List<DiscoveryRequest> requests = new CopyOnWriteArrayList<>();
  private final AtomicReference<StreamObserver<DiscoveryResponse>> stream = new AtomicReference<>();
  private final AtomicInteger nonces = new AtomicInteger();
  private Server xds;
  private EdgeHarness edge;

  @BeforeEach
  void start() throws Exception {
    xds = NettyServerBuilder.forAddress(new InetSocketAddress("127.0.0.1", 0))
        .addService(new AggregatedDiscoveryServiceGrpc.AggregatedDiscoveryServiceImplBase() {
          @Override
          public StreamObserver<DiscoveryRequest> streamAggregatedResources(StreamObserver<DiscoveryResponse> out) {
            stream.set(out);
            return new StreamObserver<>() {
              @Override
              public void onNext(DiscoveryRequest r) {
                requests.add(r);
                if (!r.getResponseNonce().isEmpty()) {
                  return; // an ACK or a NACK
                }
                if (r.getTypeUrl().equals(RTDS)) {
                  send(runtime("edge-runtime", "1", Struct.newBuilder()
                      .putFields("envoy", struct("resource_limits", struct("listener", struct("ingress",
                          struct("connection_limit", Value.newBuilder().setNumberValue(7).build())))))
                      .build()));
                } else {
                  synchronized (out) {
                    out.onNext(DiscoveryResponse.newBuilder().setTypeUrl(r.getTypeUrl()).setVersionInfo("1")
                        .setNonce("n" + nonces.incrementAndGet()).build());
                  }
                }
              }

              @Override
              public void onError(Throwable t) {}

              @Override
              public void onCompleted() {
                out.onCompleted();
              }
            };
          }
        }).build().start();
  }

  @AfterEach
  void stop() {
    if (edge != null) {
      edge.close();
    }
    xds.shutdownNow();
  }

  private static Value struct(String key, Value value) {
    return Value.newBuilder().setStructValue(Struct.newBuilder().putFields(key, value)).build();
  }

  private static Runtime runtimeResource(String name, Struct layer) {
    return Runtime.newBuilder().setName(name).setLayer(layer).build();
  }

  private static DiscoveryResponse runtime(String name, String version, Struct layer) {
    return DiscoveryResponse.newBuilder().setTypeUrl(RTDS).setVersionInfo(version)
        .addResources(Any.pack(runtimeResource(name, layer))).build();
  }

  private void send(DiscoveryResponse response) {
    StreamObserver<DiscoveryResponse> out = stream.get();
    synchronized (out) {
      out.onNext(response.toBuilder().setNonce("n" + nonces.incrementAndGet()).build());
    }
  }

  private DiscoveryRequest awaitRequest(Predicate<DiscoveryRequest> match) throws InterruptedException {
    long deadline = System.nanoTime() + Duration.ofSeconds(10).toNanos();
    while (System.nanoTime() < deadline) {
      for (DiscoveryRequest r : requests) {
        if (match.test(r)) {
          return r;
        }
      }
      Thread.sleep(10);
    }
    throw new AssertionError("no matching request; got " + requests);
  }

  private long limit() {
    return edge.server().runtime().snapshot()
        .getInteger("envoy.resource_limits.listener.ingress.connection_limit", -1);
  }

  @Test
  void theRtdsLayerTakesTheResourceAndABadOneIsNackedWithItsKey() throws Exception {
    edge = EdgeHarness.startForEnvoyXds(XdsResources.adsBootstrap("node: {id: edge-1, cluster: edges}\n",
        xds.getPort(), "5s") + """
        layered_runtime:
          layers:
          - name: static
            static_layer: { envoy: { resource_limits: { listener: { ingress: { connection_limit: 100 } } } } }
          - name: control_plane
            rtds_layer: { name: edge-runtime, rtds_config: { ads: {} } }
        """, null);

    DiscoveryRequest subscription = awaitRequest(r -> r.getTypeUrl().equals(RTDS));
    assertThat(subscription.getResourceNamesList()).containsExactly("edge-runtime");
    awaitRequest(r -> r.getTypeUrl().equals(RTDS) && r.getVersionInfo().equals("1") && !r.hasErrorDetail());
    assertThat(limit()).isEqualTo(7);
    assertThat(edge.server().runtime().snapshot().layerNames()).containsExactly("static", "control_plane");

    // A list is no runtime value: NACKed, naming the resource and the key; the layer keeps 7.
    send(runtime("edge-runtime", "2", Struct.newBuilder().putFields("bad", Value.newBuilder()
        .setListValue(com.google.protobuf.ListValue.newBuilder().addValues(Value.newBuilder().setNumberValue(1)))
        .build()).build()));
    DiscoveryRequest nack = awaitRequest(r -> r.getTypeUrl().equals(RTDS) && r.hasErrorDetail());
    assertThat(nack.getErrorDetail().getMessage()).startsWith("runtime \"edge-runtime\".layer.bad: ");
    assertThat(nack.getVersionInfo()).isEqualTo("1");
    assertThat(limit()).isEqualTo(7);

    // A new version of the resource replaces the layer's values.
    send(runtime("edge-runtime", "3", Struct.newBuilder().putFields("other", Value.newBuilder().setBoolValue(true)
        .build()).build()));
    awaitRequest(r -> r.getTypeUrl().equals(RTDS) && r.getVersionInfo().equals("3") && !r.hasErrorDetail());
    assertThat(limit()).isEqualTo(100);
    assertThat(edge.server().runtime().snapshot().getBoolean("other", false)).isTrue();
  }
}
