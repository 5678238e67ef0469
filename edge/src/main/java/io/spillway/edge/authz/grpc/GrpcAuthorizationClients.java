package io.spillway.edge.authz.grpc;

import io.envoyproxy.envoy.service.auth.v3.AuthorizationGrpc;
import io.envoyproxy.envoy.service.auth.v3.CheckRequest;
import io.envoyproxy.envoy.service.auth.v3.CheckResponse;
import io.grpc.CallOptions;
import io.grpc.Channel;
import io.grpc.ClientCall;
import io.grpc.ClientInterceptors;
import io.grpc.ManagedChannel;
import io.grpc.Metadata;
import io.grpc.Status;
import io.grpc.netty.shaded.io.grpc.netty.NettyChannelBuilder;
import io.grpc.netty.shaded.io.netty.channel.EventLoopGroup;
import io.grpc.netty.shaded.io.netty.channel.nio.NioEventLoopGroup;
import io.grpc.netty.shaded.io.netty.channel.socket.nio.NioSocketChannel;
import io.grpc.stub.ClientCalls;
import io.grpc.stub.MetadataUtils;
import io.grpc.stub.StreamObserver;
import io.spillway.edge.authz.AuthorizationClient;
import io.spillway.edge.authz.AuthorizationClients;
import io.spillway.edge.authz.AuthzAnswer;
import io.spillway.edge.authz.AuthzRequest;
import io.spillway.edge.config.ExtAuthzConfig;
import io.spillway.edge.upstream.ClusterManager;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.Executor;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.function.Consumer;

/**
 * The edge's gRPC authorization clients: one channel per cluster and {@code :authority}, built when
 * a connection manager with such an ext_authz filter is built (control side) and shared by every
 * worker and every later connection manager; the channel spreads its calls over the cluster's hosts
 * ({@link ClusterNameResolver}, {@code round_robin}) on its own event loop, never a worker's: a
 * worker only hands a call over and gets its answer back on its own loop. {@link #close()} (the edge
 * stopping) shuts every channel down.
 *
 * <p>The calls do not go through the cluster's pools: its circuit breakers and {@code upstream_rq_*}
 * stats do not see them (the filter passes each through the cluster's outbound guard itself).
 */
public final class GrpcAuthorizationClients implements AuthorizationClients, AutoCloseable {

  private final ClusterManager clusters;
  /** The channels' one event loop, made when the first gRPC ext_authz is configured. */
  private final java.util.concurrent.atomic.AtomicReference<EventLoopGroup> group =
      new java.util.concurrent.atomic.AtomicReference<>();
  private final Map<String, ManagedChannel> channels = new ConcurrentHashMap<>();
  private volatile boolean closed;

  public GrpcAuthorizationClients(ClusterManager clusters) {
    this.clusters = clusters;
  }

  /** The event loop, made on first use (the control path: connection managers are built there). */
  private EventLoopGroup group() {
    EventLoopGroup g = group.get();
    if (g != null) {
      return g;
    }
    EventLoopGroup made = new NioEventLoopGroup(1, runnable -> {
      Thread t = new Thread(runnable, "spillway-ext-authz-grpc");
      t.setDaemon(true);
      return t;
    });
    if (group.compareAndSet(null, made)) {
      return made;
    }
    made.shutdownGracefully(0, 0, TimeUnit.SECONDS);
    return group.get();
  }

  @Override
  public AuthorizationClient grpc(ExtAuthzConfig config) {
    if (closed) {
      throw new IllegalStateException("the gRPC authorization clients are closed");
    }
    String authority = config.uri().isEmpty() ? config.cluster() : config.uri();
    ManagedChannel channel = channels.computeIfAbsent(config.cluster() + "\n" + authority,
        key -> channel(config.cluster(), authority));
    Metadata metadata = new Metadata();
    for (ExtAuthzConfig.Header h : config.headersToAdd()) {
      metadata.put(Metadata.Key.of(h.name(), Metadata.ASCII_STRING_MARSHALLER), h.value());
    }
    Channel withMetadata = ClientInterceptors.intercept(channel, MetadataUtils.newAttachHeadersInterceptor(metadata));
    EventLoopGroup loops = group();
    return (request, timeout, loop, onAnswer) -> {
      long timeoutNanos = timeout.toNanos();
      CallOptions options = timeoutNanos > 0
          ? CallOptions.DEFAULT.withDeadlineAfter(timeoutNanos, TimeUnit.NANOSECONDS) : CallOptions.DEFAULT;
      Call call = new Call(withMetadata, options, loops.next(), loop, onAnswer);
      call.start(request);
      return call;
    };
  }

  @SuppressWarnings("deprecation") // nameResolverFactory: the one way to give a channel its own resolver
  private ManagedChannel channel(String cluster, String authority) {
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

  /**
   * One check call. Everything gRPC does for it — building the message, starting, cancelling,
   * reading the answer — happens on the channel's event loop (one loop per call, so a cancel comes
   * after its start); the answer goes to the request's worker once.
   */
  private static final class Call implements StreamObserver<CheckResponse>, AuthorizationClient.PendingCheck {
    private final Channel channel;
    private final CallOptions options;
    private final Executor io;
    private final Executor loop;
    private final Consumer<AuthzAnswer> onAnswer;
    private final AtomicBoolean answered = new AtomicBoolean();
    /** On {@code io} only. */
    private ClientCall<CheckRequest, CheckResponse> call;

    Call(Channel channel, CallOptions options, Executor io, Executor loop, Consumer<AuthzAnswer> onAnswer) {
      this.channel = channel;
      this.options = options;
      this.io = io;
      this.loop = loop;
      this.onAnswer = onAnswer;
    }

    /** From the request's worker: hands the call to the channel's loop. */
    void start(AuthzRequest request) {
      try {
        io.execute(() -> send(request));
      } catch (RejectedExecutionException e) {
        deliver(AuthzAnswer.error("the gRPC clients are closed", false));
      }
    }

    private void send(AuthzRequest request) {
      if (answered.get()) {
        return; // cancelled before it started
      }
      CheckRequest proto;
      try {
        proto = CheckRequests.of(request);
      } catch (RuntimeException e) {
        deliver(AuthzAnswer.error("cannot build the check request: " + e, false));
        return;
      }
      call = channel.newCall(AuthorizationGrpc.getCheckMethod(), options);
      ClientCalls.asyncUnaryCall(call, proto, this);
    }

    @Override
    public void cancel() {
      answered.set(true);
      try {
        io.execute(() -> {
          if (call != null) {
            call.cancel("the request went away", null);
          }
        });
      } catch (RejectedExecutionException e) {
        // Closed: the channel's calls are gone already.
      }
    }

    @Override
    public void onNext(CheckResponse response) {
      AuthzAnswer answer;
      try {
        answer = CheckResponses.answer(response);
      } catch (RuntimeException e) {
        answer = AuthzAnswer.error("cannot read the check response: " + e, false);
      }
      deliver(answer);
    }

    @Override
    public void onError(Throwable t) {
      Status status = Status.fromThrowable(t);
      deliver(AuthzAnswer.error(status.getCode() + (status.getDescription() == null ? "" : ": " + status.getDescription()),
          status.getCode() == Status.Code.DEADLINE_EXCEEDED));
    }

    @Override
    public void onCompleted() {
      deliver(AuthzAnswer.error("the call ended without a response", false));
    }

    private void deliver(AuthzAnswer answer) {
      if (!answered.compareAndSet(false, true)) {
        return;
      }
      try {
        loop.execute(() -> onAnswer.accept(answer));
      } catch (RejectedExecutionException e) {
        // The worker has stopped: the request is gone with it.
      }
    }
  }
}
