package io.spillway.central.xds;

import io.envoyproxy.envoy.config.core.v3.Node;
import io.envoyproxy.envoy.service.discovery.v3.AggregatedDiscoveryServiceGrpc;
import io.envoyproxy.envoy.service.discovery.v3.DeltaDiscoveryRequest;
import io.envoyproxy.envoy.service.discovery.v3.DeltaDiscoveryResponse;
import io.envoyproxy.envoy.service.discovery.v3.DiscoveryRequest;
import io.envoyproxy.envoy.service.discovery.v3.DiscoveryResponse;
import io.grpc.ManagedChannel;
import io.grpc.Metadata;
import io.grpc.Status;
import io.grpc.netty.shaded.io.grpc.netty.NettyChannelBuilder;
import io.grpc.stub.MetadataUtils;
import io.grpc.stub.StreamObserver;
import java.time.Duration;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;

/**
 * A hand-driven ADS client for tests: every request is written by the test, every response is
 * queued with the time it arrived. One stream, State of the World or Delta.
 */
final class ScriptedAdsClient implements AutoCloseable {

  /** A response and when it arrived (nanoTime). */
  record Received<T>(T response, long atNanos) {}

  private final ManagedChannel channel;
  private final BlockingQueue<Received<DiscoveryResponse>> sotw = new LinkedBlockingQueue<>();
  private final BlockingQueue<Received<DeltaDiscoveryResponse>> delta = new LinkedBlockingQueue<>();
  private final CompletableFuture<Status> ended = new CompletableFuture<>();
  private StreamObserver<DiscoveryRequest> sotwRequests;
  private StreamObserver<DeltaDiscoveryRequest> deltaRequests;

  private ScriptedAdsClient(int port, String credential) {
    channel = NettyChannelBuilder.forAddress("127.0.0.1", port).usePlaintext().build();
    Metadata headers = new Metadata();
    if (credential != null) {
      headers.put(Metadata.Key.of("authorization", Metadata.ASCII_STRING_MARSHALLER), "Bearer " + credential);
    }
    stub = AggregatedDiscoveryServiceGrpc.newStub(channel).withInterceptors(MetadataUtils.newAttachHeadersInterceptor(headers));
  }

  private final AggregatedDiscoveryServiceGrpc.AggregatedDiscoveryServiceStub stub;

  /** A State-of-the-World stream presenting {@code credential} (null: no authorization metadata). */
  static ScriptedAdsClient sotw(int port, String credential) {
    ScriptedAdsClient client = new ScriptedAdsClient(port, credential);
    client.sotwRequests = client.stub.streamAggregatedResources(client.observer(client.sotw));
    return client;
  }

  /** A Delta stream presenting {@code credential}. */
  static ScriptedAdsClient delta(int port, String credential) {
    ScriptedAdsClient client = new ScriptedAdsClient(port, credential);
    client.deltaRequests = client.stub.deltaAggregatedResources(client.observer(client.delta));
    return client;
  }

  private <T> StreamObserver<T> observer(BlockingQueue<Received<T>> queue) {
    return new StreamObserver<>() {
      @Override
      public void onNext(T value) {
        queue.add(new Received<>(value, System.nanoTime()));
      }

      @Override
      public void onError(Throwable t) {
        ended.complete(Status.fromThrowable(t));
      }

      @Override
      public void onCompleted() {
        ended.complete(Status.OK);
      }
    };
  }

  static Node node(String id) {
    return Node.newBuilder().setId(id).setCluster("edges").build();
  }

  void send(DiscoveryRequest request) {
    sotwRequests.onNext(request);
  }

  void send(DeltaDiscoveryRequest request) {
    deltaRequests.onNext(request);
  }

  /** Subscribes (no nonce) to a type. */
  void subscribe(Node node, XdsType type, String version, String... names) {
    DiscoveryRequest.Builder request = DiscoveryRequest.newBuilder().setTypeUrl(type.typeUrl()).setVersionInfo(version)
        .addAllResourceNames(java.util.List.of(names));
    if (node != null) {
      request.setNode(node);
    }
    send(request.build());
  }

  /** ACKs a response. */
  void ack(DiscoveryResponse response, String... names) {
    send(DiscoveryRequest.newBuilder().setTypeUrl(response.getTypeUrl()).setVersionInfo(response.getVersionInfo())
        .setResponseNonce(response.getNonce()).addAllResourceNames(java.util.List.of(names)).build());
  }

  /** NACKs a response, keeping {@code previousVersion}. */
  void nack(DiscoveryResponse response, String previousVersion, String error) {
    send(DiscoveryRequest.newBuilder().setTypeUrl(response.getTypeUrl()).setVersionInfo(previousVersion)
        .setResponseNonce(response.getNonce())
        .setErrorDetail(com.google.rpc.Status.newBuilder().setCode(3).setMessage(error)).build());
  }

  /** The next State-of-the-World response, or null after the timeout. */
  Received<DiscoveryResponse> next(Duration timeout) throws InterruptedException {
    return sotw.poll(timeout.toMillis(), TimeUnit.MILLISECONDS);
  }

  /** The next response, which must arrive within the timeout. */
  DiscoveryResponse expect(Duration timeout) throws InterruptedException {
    Received<DiscoveryResponse> received = next(timeout);
    if (received == null) {
      throw new AssertionError("no response within " + timeout + (ended.isDone() ? "; the stream ended: " + ended.join() : ""));
    }
    return received.response();
  }

  /** The next Delta response, which must arrive within the timeout. */
  DeltaDiscoveryResponse expectDelta(Duration timeout) throws InterruptedException {
    Received<DeltaDiscoveryResponse> received = delta.poll(timeout.toMillis(), TimeUnit.MILLISECONDS);
    if (received == null) {
      throw new AssertionError("no delta response within " + timeout + (ended.isDone() ? "; the stream ended: " + ended.join() : ""));
    }
    return received.response();
  }

  /** The next Delta response or null. */
  Received<DeltaDiscoveryResponse> nextDelta(Duration timeout) throws InterruptedException {
    return delta.poll(timeout.toMillis(), TimeUnit.MILLISECONDS);
  }

  /** How the stream ended, waiting up to the timeout. */
  Status ended(Duration timeout) throws Exception {
    return ended.get(timeout.toMillis(), TimeUnit.MILLISECONDS);
  }

  @Override
  public void close() {
    try {
      if (sotwRequests != null) {
        sotwRequests.onCompleted();
      }
      if (deltaRequests != null) {
        deltaRequests.onCompleted();
      }
    } catch (RuntimeException e) {
      // already ended
    }
    channel.shutdownNow();
    try {
      channel.awaitTermination(5, TimeUnit.SECONDS);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }
}
