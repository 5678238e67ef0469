package io.spillway.edge.xds;

import com.google.protobuf.Message;
import io.envoyproxy.envoy.service.discovery.v3.AggregatedDiscoveryServiceGrpc;
import io.envoyproxy.envoy.service.discovery.v3.DeltaDiscoveryRequest;
import io.envoyproxy.envoy.service.discovery.v3.DeltaDiscoveryResponse;
import io.envoyproxy.envoy.service.discovery.v3.DiscoveryRequest;
import io.envoyproxy.envoy.service.discovery.v3.DiscoveryResponse;
import io.grpc.ManagedChannel;
import io.grpc.Metadata;
import io.grpc.netty.shaded.io.grpc.netty.NettyChannelBuilder;
import io.grpc.stub.ClientCallStreamObserver;
import io.grpc.stub.ClientResponseObserver;
import io.grpc.stub.MetadataUtils;
import io.grpc.stub.StreamObserver;
import io.spillway.edge.config.ConfigException;
import io.spillway.edge.config.XdsClientConfig.XdsServer;
import io.spillway.edge.config.XdsClientConfig;
import io.spillway.edge.stats.Scope;
import io.spillway.edge.xds.LastKnownGoodStore.StoredResource;
import io.spillway.edge.xds.LastKnownGoodStore.StoredType;
import io.spillway.edge.xds.ResourceDecoder.DecodeException;
import io.spillway.edge.xds.ResourceDecoder.Decoded;
import java.io.IOException;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.EnumMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.SplittableRandom;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.ScheduledThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import java.util.random.RandomGenerator;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The edge's ADS client: one bidirectional gRPC stream to an xDS server carrying clusters,
 * endpoints, listeners, route configurations and the overload policy, State-of-the-World or Delta
 * as configured.
 *
 * <p><b>Order.</b> On the first round the client subscribes to clusters (wildcard), then, once they
 * are accepted, to the endpoints of the EDS clusters (by name), then to listeners (wildcard), then
 * to the route configurations the listeners' HTTP connection managers name. The overload policy
 * (wildcard) is subscribed to once a response's {@code control_plane.identifier} names its type
 * (or from the start, or never, as configured), so a server that knows only Envoy's types is never
 * asked for it. Later streams subscribe to everything at once, with the versions held.
 * When the clusters or listeners change the set of endpoint or route names needed, the subscription
 * follows.
 *
 * <p><b>ACK and NACK.</b> Each response is decoded and merged into the complete current set of its
 * type, which goes to the {@link XdsConfigSink}. Only after the sink returned is the response
 * ACKed (its version and nonce); a decoding problem or a {@link ConfigException} from the sink is
 * NACKed with the message as {@code error_detail}, and the previous version stays in force.
 *
 * <p><b>Failures.</b> A failed stream is reopened after a delay drawn uniformly from zero to
 * {@code min(cap, base * 2^failures)} (exponential back-off with full jitter), on the next server
 * of the list. Accepted state is written to the {@link LastKnownGoodStore} after every update; when
 * the first round does not complete within the initial fetch timeout and no server answered, the
 * stored state goes to the sink (in type order) and the client keeps trying.
 *
 * <p><b>Threads.</b> Everything, including the gRPC callbacks and every sink call, runs on one
 * thread the client owns; {@link #status()} and {@link #ready()} may be called from any thread.
 */
public final class AdsClient implements AutoCloseable {

  private static final Logger log = LoggerFactory.getLogger(AdsClient.class);
  private static final int INVALID_ARGUMENT = 3;
  private static final int MAX_INBOUND_MESSAGE_BYTES = 64 * 1024 * 1024;

  private final XdsClientConfig config;
  private final XdsConfigSink sink;
  private final Clock clock;
  private final RandomGenerator random;
  private final Optional<LastKnownGoodStore> store;
  private final XdsStats stats;
  private final Backoff backoff;
  private final ScheduledExecutorService executor;
  private final Map<XdsResourceType, TypeState> types = new EnumMap<>(XdsResourceType.class);
  private final CompletableFuture<Void> ready = new CompletableFuture<>();
  private final ManagedChannel[] channels;
  /** Per route configuration name, the stats of every connection manager naming it. */
  private Map<String, List<XdsStats.ResourceStats>> routeStats = Map.of();
  /** EDS resource name → the clusters that use it (from the accepted clusters), for per-cluster stats. */
  private Map<String, Set<String>> edsClusters = Map.of();
  private volatile XdsStatus status;
  private final List<ControlPlaneHook> hooks = new java.util.concurrent.CopyOnWriteArrayList<>();

  // Confined to the executor.
  private Stream stream;
  private int serverIndex;
  private int failures;
  /** The servers a stream could not even be established to (during the first round). */
  private final java.util.Set<XdsServer> unreachable = new java.util.HashSet<>();
  private boolean firstRound = true;
  private boolean started;
  private boolean closed;
  private ScheduledFuture<?> initialFetchTimer;
  private ScheduledFuture<?> reconnectTimer;

  /** A client with the system clock and its own random source. */
  public AdsClient(XdsClientConfig config, XdsConfigSink sink, Scope scope) {
    this(config, sink, scope, Clock.systemUTC(), new SplittableRandom());
  }

  /**
   * A client; nothing happens until {@link #start()}.
   *
   * @param config servers, variant, node, timeouts, back-off, state directory
   * @param sink where accepted sets go, called on the client's thread
   * @param scope the root stats scope
   * @param clock for the times shown in {@link #status()} and stored on disk
   * @param random the source of the back-off jitter
   */
  public AdsClient(XdsClientConfig config, XdsConfigSink sink, Scope scope, Clock clock, RandomGenerator random) {
    this.config = config;
    this.sink = sink;
    this.clock = clock;
    this.random = random;
    this.store = config.stateDirectory().map(LastKnownGoodStore::new);
    this.stats = new XdsStats(scope);
    this.backoff = new Backoff(config.backoffBase(), config.backoffCap());
    for (XdsResourceType type : XdsResourceType.values()) {
      types.put(type, new TypeState(type, stats.of(type)));
    }
    types.get(XdsResourceType.RUNTIME).names = TypeState.copy(config.runtimeResources());
    this.channels = new ManagedChannel[config.servers().size()];
    ScheduledThreadPoolExecutor thread = new ScheduledThreadPoolExecutor(1, runnable -> {
      Thread t = new Thread(runnable, "spillway-xds");
      t.setDaemon(true);
      return t;
    });
    // Timers (initial fetch, reconnect) must not hold up close().
    thread.setExecuteExistingDelayedTasksAfterShutdownPolicy(false);
    thread.setRemoveOnCancelPolicy(true);
    this.executor = thread;
    publishStatus();
  }

  /** Opens the first stream and starts the initial fetch timer. Calling it again does nothing. */
  public void start() {
    executor.execute(() -> {
      if (started || closed) {
        return;
      }
      started = true;
      initialFetchTimer = executor.schedule(this::initialFetchTimedOut,
          config.initialFetchTimeout().toNanos(), TimeUnit.NANOSECONDS);
      connect();
    });
  }

  /**
   * Completes when the first round (clusters, their endpoints, listeners, their routes) has been
   * applied, or when the initial fetch timeout passed (after the last-known-good state, if any,
   * was applied). Never completes exceptionally except by {@link #close()} (cancelled).
   */
  public CompletableFuture<Void> ready() {
    return ready.copy();
  }

  /** The current state; a new immutable snapshot after every change. */
  public XdsStatus status() {
    return status;
  }

  /** Adds a hook told of every answered stream (before {@link #start()}); it is closed with the client. */
  public void addHook(ControlPlaneHook hook) {
    hooks.add(java.util.Objects.requireNonNull(hook, "hook"));
  }

  /** Closes the stream and the channels and stops the client's thread. */
  @Override
  public void close() {
    java.util.concurrent.Future<?> stopped;
    try {
      stopped = executor.submit(this::shutdown);
    } catch (java.util.concurrent.RejectedExecutionException e) {
      return;
    }
    try {
      stopped.get(5, TimeUnit.SECONDS);
    } catch (java.util.concurrent.ExecutionException | java.util.concurrent.TimeoutException e) {
      log.warn("xDS: closing the client did not finish cleanly: {}", e.toString());
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
    executor.shutdown();
    try {
      if (!executor.awaitTermination(5, TimeUnit.SECONDS)) {
        executor.shutdownNow();
      }
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      executor.shutdownNow();
    }
    ready.cancel(false);
  }

  private void shutdown() {
    closed = true;
    cancel(initialFetchTimer);
    cancel(reconnectTimer);
    if (stream != null) {
      stream.cancel();
      stream = null;
    }
    for (ManagedChannel channel : channels) {
      if (channel != null) {
        channel.shutdownNow();
      }
    }
    stats.connectedState.set(0);
    hooks.forEach(ControlPlaneHook::close);
    publishStatus();
  }

  // ---- streams -------------------------------------------------------------------------------

  private void connect() {
    if (closed) {
      return;
    }
    XdsServer server = config.servers().get(serverIndex);
    ManagedChannel channel;
    try {
      channel = channel(serverIndex);
    } catch (RuntimeException e) {
      log.error("xDS: cannot open a channel to {}: {}", server.address(), e.toString());
      reconnectLater(server);
      return;
    }
    Metadata headers = new Metadata();
    for (XdsClientConfig.Header header : server.initialMetadata()) {
      headers.put(Metadata.Key.of(header.key(), Metadata.ASCII_STRING_MARSHALLER), header.value());
    }
    AggregatedDiscoveryServiceGrpc.AggregatedDiscoveryServiceStub stub = AggregatedDiscoveryServiceGrpc.newStub(channel)
        .withInterceptors(MetadataUtils.newAttachHeadersInterceptor(headers));
    for (TypeState state : types.values()) {
      state.resetStream();
    }
    Stream opened = new Stream(server, channel, headers);
    stream = opened;
    if (config.variant() == XdsClientConfig.Variant.SOTW) {
      opened.sotw = stub.streamAggregatedResources(observer(opened, this::onSotwResponse));
    } else {
      opened.delta = stub.deltaAggregatedResources(observer(opened, this::onDeltaResponse));
    }
    log.info("xDS: opening an ADS stream ({}) to {}", config.variant(), server.address());
    subscribeWhatIsDue();
    publishStatus();
  }
  /** The stream's observer: responses of the stream still current go to {@code onResponse}. */
  private <Q, R> ClientResponseObserver<Q, R> observer(Stream opened, java.util.function.Consumer<R> onResponse) {
    return new ClientResponseObserver<>() {
      @Override
      public void beforeStart(ClientCallStreamObserver<Q> requests) {
        requests.setOnReadyHandler(() -> streamReady(opened));
      }

      @Override
      public void onNext(R response) {
        if (stream == opened) {
          onResponse.accept(response);
        }
      }

      @Override
      public void onError(Throwable t) {
        streamClosed(opened, t);
      }

      @Override
      public void onCompleted() {
        streamClosed(opened, null);
      }
    };
  }


  private ManagedChannel channel(int index) {
    if (channels[index] == null) {
      XdsServer server = config.servers().get(index);
      NettyChannelBuilder builder = server.tls().isPresent()
          ? NettyChannelBuilder.forAddress(server.host(), server.port(), server.tls().get().channelCredentials())
          : NettyChannelBuilder.forAddress(server.host(), server.port()).usePlaintext();
      channels[index] = builder
          .executor(executor)
          .maxInboundMessageSize(MAX_INBOUND_MESSAGE_BYTES)
          .userAgent("spillway")
          .build();
    }
    return channels[index];
  }

  /**
   * The gRPC credentials of {@code tls}.
   *
   * @throws java.io.UncheckedIOException when the PEM material cannot be used
   */
  private void streamClosed(Stream closedStream, Throwable cause) {
    if (stream != closedStream || closed) {
      return;
    }
    stream = null;
    stats.connectedState.set(0);
    if (closedStream.answered) {
      hooks.forEach(ControlPlaneHook::lost);
    }
    for (TypeState state : types.values()) {
      if (state.sent) {
        state.stats.updateFailure.inc();
      }
    }
    // A stream the server answered and kept for a while was healthy: start the back-off afresh.
    if (closedStream.answered
        && Duration.between(closedStream.openedAt, clock.instant()).compareTo(config.backoffCap()) >= 0) {
      failures = 0;
    }
    log.warn("xDS: the ADS stream to {} closed: {}", closedStream.server.address(),
        cause == null ? "the server ended it" : cause.getMessage());
    if (!closedStream.ready) {
      unreachable.add(closedStream.server);
    }
    reconnectLater(closedStream.server);
    // Every server refused the connection during the first round: with a last-known-good state
    // there is nothing to wait for — serve it now and keep trying in the background.
    if (firstRound && store.isPresent() && unreachable.size() == config.servers().size()
        && types.values().stream().noneMatch(TypeState::accepted)) {
      log.warn("xDS: no xDS server can be reached; not waiting for initial_fetch_timeout");
      initialFetchTimedOut();
    }
  }

  /** Moves to the next server and schedules a connection after the back-off delay. */
  private void reconnectLater(XdsServer failed) {
    serverIndex = (serverIndex + 1) % config.servers().size();
    long delay = backoff.delayNanos(failures, random);
    failures++;
    log.info("xDS: {} failed; next attempt in {} ms, to {}", failed.address(),
        TimeUnit.NANOSECONDS.toMillis(delay), config.servers().get(serverIndex).address());
    reconnectTimer = executor.schedule(this::connect, delay, TimeUnit.NANOSECONDS);
    publishStatus();
  }

  /** The stream is established on a connected transport (gRPC calls this again after flow control waits). */
  private void streamReady(Stream readyStream) {
    if (stream != readyStream || readyStream.ready) {
      return;
    }
    readyStream.ready = true;
    stats.connectedState.set(1);
    log.info("xDS: connected to {}", readyStream.server.address());
    publishStatus();
  }

  private void markAnswered() {
    stream.answered = true;
    streamReady(stream);
  }

  // ---- subscriptions -------------------------------------------------------------------------

  /** Sends the first request of every type that is due and not yet sent on this stream. */
  private void subscribeWhatIsDue() {
    if (stream == null) {
      return;
    }
    for (TypeState state : types.values()) {
      if (!state.sent && due(state.type)) {
        sendInitial(state);
      }
    }
  }

  /** Whether a type's subscription may go out now: in the first round clusters warm before listeners. */
  private boolean due(XdsResourceType type) {
    TypeState clusters = types.get(XdsResourceType.CLUSTER);
    TypeState endpoints = types.get(XdsResourceType.ENDPOINT);
    TypeState listeners = types.get(XdsResourceType.LISTENER);
    TypeState routes = types.get(XdsResourceType.ROUTE);
    return switch (type) {
      case CLUSTER -> true;
      case OVERLOAD_POLICY -> switch (config.policySubscription()) {
        case ALWAYS -> true;
        case NEVER -> false;
        case ADVERTISED -> stream != null && stream.servesPolicy;
      };
      case ENDPOINT -> !endpoints.names.isEmpty() && (!firstRound || clusters.accepted());
      case LISTENER -> !firstRound || (clusters.accepted() && (endpoints.names.isEmpty() || endpoints.accepted()));
      case ROUTE -> !routes.names.isEmpty() && (!firstRound || listeners.accepted());
      // As in Envoy, runtime comes first: only the RTDS layers' resources, never a wildcard.
      case RUNTIME -> !types.get(XdsResourceType.RUNTIME).names.isEmpty();
    };
  }

  private void sendInitial(TypeState state) {
    state.sent = true;
    state.sentNames = TypeState.copy(state.names);
    if (config.variant() == XdsClientConfig.Variant.SOTW) {
      stream.send(sotwRequest(state, state.accepted() ? state.version : "", "", null));
    } else {
      DeltaDiscoveryRequest.Builder request = DeltaDiscoveryRequest.newBuilder().setTypeUrl(state.type.typeUrl());
      if (state.named()) {
        request.addAllResourceNamesSubscribe(state.names);
      }
      state.stored.forEach((name, resource) -> request.putInitialResourceVersions(name, resource.version()));
      stream.send(request);
    }
  }

  /** The needed EDS or RDS names changed: update the subscription and drop what is no longer named. */
  private void updateNames(TypeState state, Set<String> names) {
    if (names.equals(state.names)) {
      return;
    }
    state.names = TypeState.copy(names);
    if (state.accepted() && !names.containsAll(state.resources.keySet())) {
      Map<String, Message> kept = new LinkedHashMap<>(state.resources);
      kept.keySet().retainAll(names);
      Map<String, StoredResource> keptRaw = new LinkedHashMap<>(state.stored);
      keptRaw.keySet().retainAll(names);
      try {
        sink.apply(state.type, java.util.Collections.unmodifiableMap(kept));
        state.accept(state.version, kept, keptRaw, clock.instant(), state.fromLastKnownGood);
      } catch (ConfigException | RuntimeException e) {
        log.warn("xDS: dropping unsubscribed {} resources was refused: {}", state.type.shortName(), e.getMessage());
      }
    }
    if (stream == null || !state.sent) {
      return;
    }
    Set<String> previouslySent = state.sentNames;
    state.sentNames = TypeState.copy(names);
    if (config.variant() == XdsClientConfig.Variant.SOTW) {
      stream.send(sotwRequest(state, state.accepted() ? state.version : "", state.lastNonce, null));
    } else {
      Set<String> subscribe = new LinkedHashSet<>(names);
      subscribe.removeAll(previouslySent);
      Set<String> unsubscribe = new LinkedHashSet<>(previouslySent);
      unsubscribe.removeAll(names);
      stream.send(DeltaDiscoveryRequest.newBuilder()
          .setTypeUrl(state.type.typeUrl())
          .addAllResourceNamesSubscribe(subscribe)
          .addAllResourceNamesUnsubscribe(unsubscribe));
    }
  }

  private DiscoveryRequest.Builder sotwRequest(TypeState state, String version, String nonce, String error) {
    DiscoveryRequest.Builder request = DiscoveryRequest.newBuilder()
        .setTypeUrl(state.type.typeUrl())
        .setVersionInfo(version)
        .setResponseNonce(nonce);
    if (state.named()) {
      request.addAllResourceNames(state.sentNames);
    }
    if (error != null) {
      request.setErrorDetail(com.google.rpc.Status.newBuilder().setCode(INVALID_ARGUMENT).setMessage(error));
    }
    return request;
  }

  // ---- responses -----------------------------------------------------------------------------

  /**
   * What every response goes through first: the stream is answered, the nonce noted and the
   * attempt counted. A response of a type the edge does not know is refused with {@code refuse}.
   *
   * @return the type's state, or null for an unknown type
   */
  private TypeState responseState(String typeUrl, String nonce, java.util.function.Consumer<com.google.rpc.Status> refuse) {
    markAnswered();
    XdsResourceType type = XdsResourceType.ofUrl(typeUrl);
    if (type == null) {
      log.warn("xDS: ignoring a response of unknown type {}", typeUrl);
      refuse.accept(com.google.rpc.Status.newBuilder().setCode(INVALID_ARGUMENT)
          .setMessage("unknown resource type " + typeUrl).build());
      return null;
    }
    TypeState state = types.get(type);
    state.lastNonce = nonce;
    state.stats.updateAttempt.inc();
    return state;
  }

  /**
   * Notes whether the server serves the overload policy: a response whose
   * {@code control_plane.identifier} has the policy's type URL as one of its words says so, and the
   * policy subscription (by default held back, since a server that does not know the type may end
   * the stream) goes out.
   */
  private void noteControlPlane(io.envoyproxy.envoy.config.core.v3.ControlPlane controlPlane) {
    if (!stream.answered) {
      hooks.forEach(hook -> hook.answered(stream.channel, stream.headers, controlPlane.getIdentifier()));
    }
    if (stream.servesPolicy || !advertisesPolicy(controlPlane.getIdentifier())) {
      return;
    }
    stream.servesPolicy = true;
    if (config.policySubscription() == XdsClientConfig.PolicySubscription.ADVERTISED) {
      log.info("xDS: {} serves the overload policy; subscribing to it", stream.server.address());
      subscribeWhatIsDue();
    }
  }

  /** Whether a control plane identifier names the overload policy's type URL as one of its words. */
  static boolean advertisesPolicy(String identifier) {
    String typeUrl = XdsResourceType.OVERLOAD_POLICY.typeUrl();
    int at = identifier.indexOf(typeUrl);
    while (at >= 0) {
      int end = at + typeUrl.length();
      if ((at == 0 || isSeparator(identifier.charAt(at - 1)))
          && (end == identifier.length() || isSeparator(identifier.charAt(end)))) {
        return true;
      }
      at = identifier.indexOf(typeUrl, at + 1);
    }
    return false;
  }

  private static boolean isSeparator(char c) {
    return Character.isWhitespace(c) || c == ',' || c == ';';
  }

  private void onSotwResponse(DiscoveryResponse response) {
    noteControlPlane(response.getControlPlane());
    TypeState state = responseState(response.getTypeUrl(), response.getNonce(), error -> stream.send(
        DiscoveryRequest.newBuilder().setTypeUrl(response.getTypeUrl()).setResponseNonce(response.getNonce())
            .setErrorDetail(error)));
    if (state == null) {
      return;
    }
    XdsResourceType type = state.type;
    Map<String, Message> set = new LinkedHashMap<>();
    Map<String, StoredResource> raw = new LinkedHashMap<>();
    if (state.named()) {
      // EDS and RDS responses need only carry what changed; what is still named stays.
      set.putAll(state.resources);
      raw.putAll(state.stored);
    }
    Set<String> seen = new HashSet<>();
    try {
      for (int i = 0; i < response.getResourcesCount(); i++) {
        Decoded decoded = ResourceDecoder.decodeSotw(type, response.getResources(i), i);
        if (!seen.add(decoded.name())) {
          throw new DecodeException(type.kind() + " \"" + decoded.name() + "\" appears twice in the response");
        }
        if (state.named() && !state.names.contains(decoded.name())) {
          continue; // not subscribed to (any more)
        }
        set.put(decoded.name(), decoded.message());
        raw.put(decoded.name(), new StoredResource("", decoded.any()));
      }
    } catch (DecodeException e) {
      countPerResource(type, seen, false, "");
      nackSotw(state, e.getMessage());
      return;
    }
    boolean applied = apply(state, set);
    countPerResource(type, seen, applied, response.getVersionInfo());
    if (applied) {
      accepted(state, response.getVersionInfo(), set, raw);
      stream.send(sotwRequest(state, response.getVersionInfo(), response.getNonce(), null));
      afterAccepted(state);
    } else {
      nackSotw(state, state.lastNackMessage);
    }
  }

  private void nackSotw(TypeState state, String message) {
    rejected(state, message);
    stream.send(sotwRequest(state, state.accepted() ? state.version : "", state.lastNonce, message));
  }

  private void onDeltaResponse(DeltaDiscoveryResponse response) {
    noteControlPlane(response.getControlPlane());
    TypeState state = responseState(response.getTypeUrl(), response.getNonce(), error -> stream.send(
        DeltaDiscoveryRequest.newBuilder().setTypeUrl(response.getTypeUrl()).setResponseNonce(response.getNonce())
            .setErrorDetail(error)));
    if (state == null) {
      return;
    }
    XdsResourceType type = state.type;
    Map<String, Message> set = new LinkedHashMap<>(state.resources);
    Map<String, StoredResource> raw = new LinkedHashMap<>(state.stored);
    for (String removed : response.getRemovedResourcesList()) {
      set.remove(removed);
      raw.remove(removed);
    }
    Set<String> seen = new HashSet<>();
    try {
      for (int i = 0; i < response.getResourcesCount(); i++) {
        io.envoyproxy.envoy.service.discovery.v3.Resource resource = response.getResources(i);
        Decoded decoded = ResourceDecoder.decodeDelta(type, resource, i);
        if (!seen.add(decoded.name())) {
          throw new DecodeException(type.kind() + " \"" + decoded.name() + "\" appears twice in the response");
        }
        if (state.named() && !state.names.contains(decoded.name())) {
          continue;
        }
        set.put(decoded.name(), decoded.message());
        raw.put(decoded.name(), new StoredResource(resource.getVersion(), decoded.any()));
      }
    } catch (DecodeException e) {
      countPerResource(type, seen, false, "");
      nackDelta(state, response.getNonce(), e.getMessage());
      return;
    }
    boolean applied = apply(state, set);
    countPerResource(type, seen, applied, response.getSystemVersionInfo());
    if (applied) {
      accepted(state, response.getSystemVersionInfo(), set, raw);
      stream.send(DeltaDiscoveryRequest.newBuilder().setTypeUrl(type.typeUrl()).setResponseNonce(response.getNonce()));
      afterAccepted(state);
    } else {
      nackDelta(state, response.getNonce(), state.lastNackMessage);
    }
  }

  private void nackDelta(TypeState state, String nonce, String message) {
    rejected(state, message);
    stream.send(DeltaDiscoveryRequest.newBuilder().setTypeUrl(state.type.typeUrl())
        .setResponseNonce(nonce)
        .setErrorDetail(com.google.rpc.Status.newBuilder().setCode(INVALID_ARGUMENT).setMessage(message)));
  }

  /**
   * Hands the set to the sink; false (with the reason recorded) when it refused. A set equal to the
   * accepted one (some servers resend unchanged resources) is not handed over again.
   */
  private boolean apply(TypeState state, Map<String, Message> set) {
    if (state.accepted() && set.equals(state.resources)) {
      return true;
    }
    try {
      sink.apply(state.type, java.util.Collections.unmodifiableMap(set));
      return true;
    } catch (ConfigException e) {
      state.lastNackMessage = e.getMessage();
      return false;
    } catch (RuntimeException e) {
      log.error("xDS: the {} sink failed", state.type.shortName(), e);
      state.lastNackMessage = "the edge failed to apply the update: " + e;
      return false;
    }
  }

  private void rejected(TypeState state, String message) {
    state.lastNackMessage = message;
    state.lastNackTime = clock.instant();
    state.stats.updateRejected.inc();
    log.warn("xDS: rejected a {} update (keeping version {}): {}", state.type.shortName(),
        state.accepted() ? state.version : "none", message);
    publishStatus();
  }

  private void accepted(TypeState state, String version, Map<String, Message> set, Map<String, StoredResource> raw) {
    Instant now = clock.instant();
    state.accept(version, set, raw, now, false);
    state.stats.updateSuccess.inc();
    state.stats.version.set(XdsStats.versionHash(version));
    state.stats.updateTime.set(now.toEpochMilli());
    log.info("xDS: accepted {} version {} ({} resources)", state.type.shortName(), version, set.size());
    publishStatus();
  }

  /** After an ACK: save, follow name changes, open the next subscriptions, maybe become ready. */
  private void afterAccepted(TypeState state) {
    saveLastKnownGood();
    if (state.type == XdsResourceType.CLUSTER) {
      edsClusters = ResourceDecoder.edsClusters(state.resources.values());
      updateNames(types.get(XdsResourceType.ENDPOINT), edsClusters.keySet());
    } else if (state.type == XdsResourceType.LISTENER) {
      followRoutes(state.resources.values());
    }
    checkFirstRound();
    subscribeWhatIsDue();
    publishStatus();
  }

  /** The listeners changed: subscribe to the route configurations they name, with their stats. */
  private void followRoutes(java.util.Collection<Message> listeners) {
    updateNames(types.get(XdsResourceType.ROUTE), trackRouteStats(listeners));
  }

  /** Builds the per route configuration stats for the listeners; returns the names they need. */
  private Set<String> trackRouteStats(java.util.Collection<Message> listeners) {
    Map<String, Set<String>> prefixes = ResourceDecoder.routeStatPrefixes(listeners);
    Map<String, List<XdsStats.ResourceStats>> byName = new LinkedHashMap<>();
    prefixes.forEach((name, statPrefixes) -> {
      List<XdsStats.ResourceStats> list = new ArrayList<>();
      statPrefixes.forEach(prefix -> list.add(stats.route(prefix, name)));
      byName.put(name, List.copyOf(list));
    });
    routeStats = byName;
    return prefixes.keySet();
  }

  /**
   * Counts an EDS or RDS response against the clusters or route configurations it carries (those
   * decoded so far), as Envoy counts them per resource.
   */
  private void countPerResource(XdsResourceType type, Set<String> names, boolean accepted, String version) {
    if (type == XdsResourceType.ENDPOINT) {
      for (String name : names) {
        for (String clusterName : edsClusters.getOrDefault(name, Set.of())) {
          stats.cluster(clusterName).count(accepted, version);
        }
      }
      return;
    }
    if (type != XdsResourceType.ROUTE) {
      return;
    }
    for (String name : names) {
      for (XdsStats.ResourceStats route : routeStats.getOrDefault(name, List.of())) {
        route.count(accepted, version);
      }
    }
  }

  private void checkFirstRound() {
    if (!firstRound) {
      return;
    }
    TypeState endpoints = types.get(XdsResourceType.ENDPOINT);
    TypeState routes = types.get(XdsResourceType.ROUTE);
    boolean complete = types.get(XdsResourceType.CLUSTER).accepted()
        && (endpoints.names.isEmpty() || endpoints.accepted())
        && types.get(XdsResourceType.LISTENER).accepted()
        && (routes.names.isEmpty() || routes.accepted())
        && (types.get(XdsResourceType.RUNTIME).names.isEmpty() || types.get(XdsResourceType.RUNTIME).accepted());
    if (complete) {
      firstRound = false;
      cancel(initialFetchTimer);
      log.info("xDS: the first round (runtime, clusters, endpoints, listeners, routes) is applied");
      ready.complete(null);
    }
  }

  private void initialFetchTimedOut() {
    if (!firstRound || closed) {
      return;
    }
    firstRound = false;
    boolean anyFromServer = false;
    for (TypeState state : types.values()) {
      if (!state.accepted()) {
        state.stats.initFetchTimeout.inc();
      } else {
        anyFromServer = true;
      }
    }
    log.warn("xDS: the first round did not complete within {}", config.initialFetchTimeout());
    if (!anyFromServer) {
      loadLastKnownGood();
    }
    subscribeWhatIsDue();
    publishStatus();
    ready.complete(null);
  }

  // ---- last known good -----------------------------------------------------------------------

  private void loadLastKnownGood() {
    if (store.isEmpty()) {
      return;
    }
    Map<XdsResourceType, StoredType> stored = store.get().load();
    if (stored.isEmpty()) {
      log.warn("xDS: no usable last-known-good state in {}; starting without dynamic resources",
          store.get().file());
      return;
    }
    log.warn("xDS: starting from the last-known-good state in {}", store.get().file());
    for (XdsResourceType type : XdsResourceType.values()) {
      StoredType entry = stored.get(type);
      if (entry == null) {
        continue;
      }
      TypeState state = types.get(type);
      Map<String, Message> set = new LinkedHashMap<>();
      try {
        for (Map.Entry<String, StoredResource> e : entry.resources().entrySet()) {
          set.put(e.getKey(), ResourceDecoder.decodeStored(type, e.getKey(), e.getValue().resource()));
        }
        sink.apply(type, java.util.Collections.unmodifiableMap(set));
      } catch (DecodeException | ConfigException | RuntimeException e) {
        log.warn("xDS: the last-known-good {} set (version {}) was not applied: {}", type.shortName(),
            entry.version(), e.getMessage());
        continue;
      }
      state.accept(entry.version(), set, entry.resources(), clock.instant(), true);
      state.stats.version.set(XdsStats.versionHash(entry.version()));
      if (type == XdsResourceType.CLUSTER) {
        edsClusters = ResourceDecoder.edsClusters(set.values());
        types.get(XdsResourceType.ENDPOINT).names = TypeState.copy(edsClusters.keySet());
      } else if (type == XdsResourceType.LISTENER) {
        types.get(XdsResourceType.ROUTE).names = TypeState.copy(trackRouteStats(set.values()));
      }
    }
    // Subscriptions already sent on an open stream learn the new names.
    if (stream != null) {
      for (XdsResourceType type : List.of(XdsResourceType.ENDPOINT, XdsResourceType.ROUTE)) {
        TypeState state = types.get(type);
        if (state.sent && !state.names.equals(state.sentNames)) {
          Set<String> names = state.names;
          state.names = state.sentNames;
          updateNames(state, names);
        }
      }
    }
  }

  private void saveLastKnownGood() {
    if (store.isEmpty()) {
      return;
    }
    Map<XdsResourceType, StoredType> state = new EnumMap<>(XdsResourceType.class);
    for (TypeState type : types.values()) {
      type.toStored().ifPresent(stored -> state.put(type.type, stored));
    }
    try {
      store.get().save(state, clock.instant());
    } catch (IOException | RuntimeException e) {
      log.warn("xDS: could not write the last-known-good state to {}: {}", store.get().file(), e.toString());
    }
  }

  // ---- helpers -------------------------------------------------------------------------------

  private void publishStatus() {
    Map<XdsResourceType, XdsStatus.TypeStatus> typeStatus = new EnumMap<>(XdsResourceType.class);
    for (TypeState state : types.values()) {
      typeStatus.put(state.type, state.status());
    }
    Stream current = stream;
    Optional<String> server = current != null
        ? Optional.of(current.server.address())
        : Optional.of(config.servers().get(serverIndex).address());
    status = new XdsStatus(current != null && current.ready, server, config.variant(), typeStatus);
  }

  private static void cancel(ScheduledFuture<?> future) {
    if (future != null) {
      future.cancel(false);
    }
  }

  /** One ADS stream; requests go through {@link #send}, which adds the node where due. */
  private final class Stream {
    final XdsServer server;
    final ManagedChannel channel;
    final Metadata headers;
    final Instant openedAt = clock.instant();
    StreamObserver<DiscoveryRequest> sotw;
    StreamObserver<DeltaDiscoveryRequest> delta;
    boolean nodeSent;
    boolean ready;
    boolean answered;
    /** A response on this stream advertised the overload policy type. */
    boolean servesPolicy;

    Stream(XdsServer server, ManagedChannel channel, Metadata headers) {
      this.server = server;
      this.channel = channel;
      this.headers = headers;
    }

    void send(DiscoveryRequest.Builder request) {
      if (!nodeSent || !config.setNodeOnFirstMessageOnly()) {
        request.setNode(config.node());
        nodeSent = true;
      }
      sotw.onNext(request.build());
    }

    void send(DeltaDiscoveryRequest.Builder request) {
      if (!nodeSent || !config.setNodeOnFirstMessageOnly()) {
        request.setNode(config.node());
        nodeSent = true;
      }
      delta.onNext(request.build());
    }

    void cancel() {
      StreamObserver<?> observer = sotw != null ? sotw : delta;
      if (observer instanceof ClientCallStreamObserver<?> call) {
        call.cancel("the ADS client is closing", null);
      } else if (observer != null) {
        observer.onCompleted();
      }
    }
  }

  /** For tests and logs. */
  @Override
  public String toString() {
    List<String> servers = new ArrayList<>();
    config.servers().forEach(s -> servers.add(s.address()));
    return "AdsClient[" + config.variant() + " " + servers + "]";
  }
}
