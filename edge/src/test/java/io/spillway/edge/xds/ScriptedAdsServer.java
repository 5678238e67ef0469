package io.spillway.edge.xds;

import io.envoyproxy.envoy.service.discovery.v3.AggregatedDiscoveryServiceGrpc;
import io.envoyproxy.envoy.service.discovery.v3.DeltaDiscoveryRequest;
import io.envoyproxy.envoy.service.discovery.v3.DeltaDiscoveryResponse;
import io.envoyproxy.envoy.service.discovery.v3.DiscoveryRequest;
import io.envoyproxy.envoy.service.discovery.v3.DiscoveryResponse;
import io.grpc.Contexts;
import io.grpc.Context;
import io.grpc.Metadata;
import io.grpc.Server;
import io.grpc.ServerCall;
import io.grpc.ServerCallHandler;
import io.grpc.ServerInterceptor;
import io.grpc.ServerInterceptors;
import io.grpc.netty.shaded.io.grpc.netty.NettyServerBuilder;
import io.grpc.netty.shaded.io.netty.channel.ChannelOption;
import io.grpc.stub.StreamObserver;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import java.util.function.Predicate;

/**
 * An ADS server for tests on a real 127.0.0.1 port, driven by the test: it records every request
 * (and the headers of every stream) and sends what the test tells it to on the latest stream. It
 * never answers on its own.
 */
final class ScriptedAdsServer implements AutoCloseable {

  static final Duration WAIT = Duration.ofSeconds(10);

  /** One request with the number of the stream it came on (1, 2, ...). */
  record Received<T>(int stream, T request) {}

  private static final Context.Key<Integer> STREAM = Context.key("stream");

  private final List<Received<DiscoveryRequest>> sotwRequests = new CopyOnWriteArrayList<>();
  private final List<Received<DeltaDiscoveryRequest>> deltaRequests = new CopyOnWriteArrayList<>();
  private final List<Metadata> streamHeaders = new CopyOnWriteArrayList<>();
  private volatile StreamObserver<DiscoveryResponse> sotw;
  private volatile StreamObserver<DeltaDiscoveryResponse> delta;
  private final Server server;

  private ScriptedAdsServer(int port) throws IOException {
    this(port, null, null);
  }

  private ScriptedAdsServer(int port, java.io.File certificate, java.io.File key) throws IOException {
    ServerInterceptor headers = new ServerInterceptor() {
      @Override
      public <Q, R> ServerCall.Listener<Q> interceptCall(ServerCall<Q, R> call, Metadata metadata,
          ServerCallHandler<Q, R> next) {
        streamHeaders.add(metadata);
        return Contexts.interceptCall(Context.current().withValue(STREAM, streamHeaders.size()), call, metadata, next);
      }
    };
    NettyServerBuilder builder = NettyServerBuilder.forAddress(new InetSocketAddress("127.0.0.1", port))
        .withOption(ChannelOption.SO_REUSEADDR, true)
        .addService(ServerInterceptors.intercept(new Service(), headers));
    if (certificate != null) {
      builder.useTransportSecurity(certificate, key);
    }
    server = builder.build().start();
  }

  /** A server on a free port. */
  static ScriptedAdsServer start() throws IOException {
    return new ScriptedAdsServer(0);
  }

  /** A server on {@code port}, e.g. one that comes back where an earlier one died. */
  static ScriptedAdsServer start(int port) throws IOException {
    return new ScriptedAdsServer(port);
  }

  /** A TLS server on a free port with this certificate and key (PEM files). */
  static ScriptedAdsServer startTls(java.nio.file.Path certificate, java.nio.file.Path key) throws IOException {
    return new ScriptedAdsServer(0, certificate.toFile(), key.toFile());
  }

  int port() {
    return server.getPort();
  }

  int streams() {
    return streamHeaders.size();
  }

  List<Metadata> streamHeaders() {
    return List.copyOf(streamHeaders);
  }

  List<Received<DiscoveryRequest>> sotwRequests() {
    return List.copyOf(sotwRequests);
  }

  List<Received<DeltaDiscoveryRequest>> deltaRequests() {
    return List.copyOf(deltaRequests);
  }

  /** Waits for the first SotW request after the first {@code skip} that matches. */
  DiscoveryRequest awaitSotw(int skip, Predicate<DiscoveryRequest> match) {
    return await(sotwRequests, skip, match).request();
  }

  DeltaDiscoveryRequest awaitDelta(int skip, Predicate<DeltaDiscoveryRequest> match) {
    return await(deltaRequests, skip, match).request();
  }

  private static <T> Received<T> await(List<Received<T>> list, int skip, Predicate<T> match) {
    long deadline = System.nanoTime() + WAIT.toNanos();
    while (System.nanoTime() < deadline) {
      List<Received<T>> snapshot = new ArrayList<>(list);
      for (int i = skip; i < snapshot.size(); i++) {
        if (match.test(snapshot.get(i).request())) {
          return snapshot.get(i);
        }
      }
      sleep();
    }
    throw new AssertionError("no matching request within " + WAIT + "; received " + list);
  }

  void send(DiscoveryResponse response) {
    awaitStream(() -> sotw != null);
    sotw.onNext(response);
  }

  void send(DeltaDiscoveryResponse response) {
    awaitStream(() -> delta != null);
    delta.onNext(response);
  }

  private static void awaitStream(java.util.function.BooleanSupplier open) {
    long deadline = System.nanoTime() + WAIT.toNanos();
    while (!open.getAsBoolean()) {
      if (System.nanoTime() > deadline) {
        throw new AssertionError("no stream open within " + WAIT);
      }
      sleep();
    }
  }

  private static void sleep() {
    try {
      Thread.sleep(5);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new AssertionError(e);
    }
  }

  /** Kills the server and every stream at once, as a crash would. */
  @Override
  public void close() {
    server.shutdownNow();
    try {
      server.awaitTermination(5, TimeUnit.SECONDS);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }

  private final class Service extends AggregatedDiscoveryServiceGrpc.AggregatedDiscoveryServiceImplBase {
    @Override
    public StreamObserver<DiscoveryRequest> streamAggregatedResources(StreamObserver<DiscoveryResponse> responses) {
      int stream = STREAM.get();
      sotw = responses;
      return new StreamObserver<>() {
        @Override
        public void onNext(DiscoveryRequest request) {
          sotwRequests.add(new Received<>(stream, request));
        }

        @Override
        public void onError(Throwable t) {}

        @Override
        public void onCompleted() {}
      };
    }

    @Override
    public StreamObserver<DeltaDiscoveryRequest> deltaAggregatedResources(
        StreamObserver<DeltaDiscoveryResponse> responses) {
      int stream = STREAM.get();
      delta = responses;
      return new StreamObserver<>() {
        @Override
        public void onNext(DeltaDiscoveryRequest request) {
          deltaRequests.add(new Received<>(stream, request));
        }

        @Override
        public void onError(Throwable t) {}

        @Override
        public void onCompleted() {}
      };
    }
  }
}
