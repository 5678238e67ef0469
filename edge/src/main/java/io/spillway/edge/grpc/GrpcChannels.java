package io.spillway.edge.grpc;

import io.grpc.CallOptions;
import io.grpc.Channel;
import io.grpc.ClientInterceptors;
import io.grpc.ManagedChannel;
import io.grpc.Metadata;
import io.grpc.MethodDescriptor;
import io.grpc.netty.shaded.io.grpc.netty.NettyChannelBuilder;
import io.grpc.netty.shaded.io.netty.channel.EventLoopGroup;
import io.grpc.netty.shaded.io.netty.channel.nio.NioEventLoopGroup;
import io.grpc.netty.shaded.io.netty.channel.socket.nio.NioSocketChannel;
import io.grpc.stub.MetadataUtils;
import io.spillway.edge.config.GrpcServiceConfig;
import io.spillway.edge.upstream.ClusterManager;
import java.time.Duration;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.Executor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.BiFunction;
import java.util.function.Consumer;
import java.util.function.Function;
import java.util.function.Supplier;

/**
 * The edge's gRPC client channels to its own clusters (Envoy's {@code envoy_grpc}): one channel per
 * cluster and {@code :authority}, made when a filter that calls such a service is built (control
 * side) and shared by every worker, every later connection manager and every filter calling the same
 * cluster (ext_authz, the global rate limit filter). A channel spreads its calls over the cluster's
 * hosts ({@link ClusterNameResolver}, {@code round_robin}) on the channels' own event loop, never a
 * worker's: a worker only hands a call over ({@link #unary}) and gets its answer back on its own
 * loop. {@link #close()} (the edge stopping) shuts every channel down.
 *
 * <p>The calls do not go through the cluster's pools: its circuit breakers and {@code upstream_rq_*}
 * stats do not see them (the filters pass each through the cluster's outbound guard themselves).
 */
public final class GrpcChannels implements AutoCloseable {

  private final ClusterManager clusters;
  /** The channels' one event loop, made when the first channel is. */
  private final AtomicReference<EventLoopGroup> group = new AtomicReference<>();
  private final Map<String, ManagedChannel> channels = new ConcurrentHashMap<>();
  private volatile boolean closed;

  public GrpcChannels(ClusterManager clusters) {
    this.clusters = clusters;
  }

  /**
   * A channel to {@code service}'s cluster carrying its {@code initial_metadata} on every call: the
   * shared channel of that cluster and authority, made on first use (control side).
   */
  public Channel channel(GrpcServiceConfig service) {
    if (closed) {
      throw new IllegalStateException("the gRPC channels are closed");
    }
    ManagedChannel channel = channels.computeIfAbsent(service.cluster() + "\n" + service.authority(),
        key -> build(service.cluster(), service.authority()));
    if (service.initialMetadata().isEmpty()) {
      return channel;
    }
    Metadata metadata = new Metadata();
    for (GrpcServiceConfig.Metadata m : service.initialMetadata()) {
      metadata.put(Metadata.Key.of(m.name(), Metadata.ASCII_STRING_MARSHALLER), m.value());
    }
    return ClientInterceptors.intercept(channel, MetadataUtils.newAttachHeadersInterceptor(metadata));
  }

  /**
   * Starts one unary call from a worker; see {@link UnaryCall}. The call runs on one of the channels'
   * loops; {@code onAnswer} gets its answer once, on {@code loop}.
   *
   * @param request builds the request message, on the channels' loop (may throw: an error answer)
   * @param answer reads the response message (may throw: an error answer)
   * @param error the answer of a failed call: its description and whether the deadline passed
   * @param timeout the call's deadline from now; zero = none
   */
  public <Q, R, A> UnaryCall<Q, R, A> unary(Channel channel, MethodDescriptor<Q, R> method, Supplier<Q> request,
      Function<R, A> answer, BiFunction<String, Boolean, A> error, Duration timeout, Executor loop,
      Consumer<A> onAnswer) {
    long timeoutNanos = timeout.toNanos();
    CallOptions options = timeoutNanos > 0
        ? CallOptions.DEFAULT.withDeadlineAfter(timeoutNanos, TimeUnit.NANOSECONDS) : CallOptions.DEFAULT;
    UnaryCall<Q, R, A> call = new UnaryCall<>(channel, method, options, group().next(), loop, answer, error, onAnswer);
    call.start(request);
    return call;
  }

  /** The event loop, made on first use. */
  private EventLoopGroup group() {
    EventLoopGroup g = group.get();
    if (g != null) {
      return g;
    }
    EventLoopGroup made = new NioEventLoopGroup(1, runnable -> {
      Thread t = new Thread(runnable, "spillway-grpc-client");
      t.setDaemon(true);
      return t;
    });
    if (group.compareAndSet(null, made)) {
      return made;
    }
    made.shutdownGracefully(0, 0, TimeUnit.SECONDS);
    return group.get();
  }

  @SuppressWarnings("deprecation") // nameResolverFactory: the one way to give a channel its own resolver
  private ManagedChannel build(String cluster, String authority) {
    return NettyChannelBuilder.forTarget(ClusterNameResolver.SCHEME + ":///" + authority)
        .nameResolverFactory(ClusterNameResolver.provider(clusters, cluster, authority))
        .defaultLoadBalancingPolicy("round_robin")
        .eventLoopGroup(group())
        .channelType(NioSocketChannel.class)
        .directExecutor()
        .usePlaintext()
        .disableRetry()
        .userAgent("spillway")
        .build();
  }

  /** Shuts every channel down (their calls fail, answered as errors) and stops the event loop. */
  @Override
  public void close() {
    closed = true;
    for (ManagedChannel channel : channels.values()) {
      channel.shutdownNow();
    }
    for (ManagedChannel channel : channels.values()) {
      try {
        channel.awaitTermination(2, TimeUnit.SECONDS);
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        break;
      }
    }
    channels.clear();
    EventLoopGroup g = group.get();
    if (g != null) {
      g.shutdownGracefully(0, 2, TimeUnit.SECONDS).awaitUninterruptibly(5, TimeUnit.SECONDS);
    }
  }
}
