package io.spillway.edge.server;

import io.envoyproxy.envoy.config.bootstrap.v3.Bootstrap;
import io.netty.buffer.ByteBufAllocator;
import io.netty.buffer.PooledByteBufAllocator;
import io.netty.channel.EventLoop;
import io.netty.channel.EventLoopGroup;
import io.netty.util.concurrent.EventExecutor;
import io.spillway.edge.admin.AdminContext;
import io.spillway.edge.admission.AdmissionController;
import io.spillway.edge.config.EdgeConfig;
import io.spillway.edge.config.ListenerConfig;
import io.spillway.edge.config.OverloadNames;
import io.spillway.edge.config.XdsClientConfig;
import io.spillway.edge.http.DrainSignal;
import io.spillway.edge.http.HttpConnectionManager;
import io.spillway.edge.http.OverloadHooks;
import io.spillway.edge.listener.Listener;
import io.spillway.edge.listener.ListenerOverload;
import io.spillway.edge.overload.ActionIndex;
import io.spillway.edge.overload.OverloadDescription;
import io.spillway.edge.overload.OverloadManager;
import io.spillway.edge.overload.monitor.StandardMonitors;
import io.spillway.edge.router.RouteTable;
import io.spillway.edge.stats.Scope;
import io.spillway.edge.stats.StatsStore;
import io.spillway.edge.upstream.ClusterManager;
import io.spillway.edge.upstream.Worker;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.random.RandomGenerator;
import java.util.random.RandomGeneratorFactory;
import java.util.stream.Collectors;
import javax.net.ssl.SSLException;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The edge process's server: the main (control) thread's services, N worker event loops, the
 * cluster manager, the listeners and the admin listener; start-up, drain and shutdown.
 */
public final class EdgeServer implements AdminContext {
  private static final Logger log = LoggerFactory.getLogger(EdgeServer.class);


  private final EdgeConfig config;
  private final Bootstrap bootstrap;
  private final ServerOptions options;
  private final StatsStore stats;
  private final Clock clock;
  /** The monotonic clock of the hot path's time-based limits (local rate limit buckets). */
  private final java.util.function.LongSupplier nanoClock = System::nanoTime;
  private final io.spillway.edge.router.RouteFilterCompiler routeFilters;
  private final Instant startedAt;
  private final DrainSignal drain = new DrainSignal();
  private final CountDownLatch terminated = new CountDownLatch(1);
  private final List<Listener> listeners = new CopyOnWriteArrayList<>();
  private final List<HttpConnectionManager> connectionManagers = new CopyOnWriteArrayList<>();
  private OverloadHooks httpOverload;
  private ListenerOverload listenerOverload;
  private Map<EventLoop, Worker> workers;
  private ByteBufAllocator allocator;
  private ScheduledExecutorService control;
  private Transport transport;
  private EventLoopGroup acceptors;
  private EventLoopGroup workerGroup;
  /** One loop for every active health check's connections, so checks never run on a worker. */
  private EventLoopGroup healthCheckGroup;
  private ClusterManager clusters;
  private OverloadManager overload;
  private AdmissionController admission;
  private io.spillway.edge.filters.policylimit.PolicyRateLimits rateLimits; // the control plane's; shared by every HCM
  private io.spillway.edge.redis.RedisFleetCounter fleetCounter; // with --redis-uri: the fleet-wide limits' count
  private io.spillway.edge.guard.GuardRegistry guards;
  private AdminListener admin;
  /** The hot restart socket and the parent's, when hot restart runs (epoll, not disabled). */
  private HotRestart hotRestart;
  private StatsSinks statsSinks;
  private io.spillway.edge.accesslog.AccessLogManager accessLogs;
  private io.spillway.edge.tracing.Tracers tracers;
  private io.spillway.edge.accesslog.AccessLogs adminAccessLogs = io.spillway.edge.accesslog.AccessLogs.NONE;
  private ActionIndex stopAccepting;
  private volatile Thread controlThread;
  private DynamicConfiguration dynamic;
  private ListenerAssembler listenerAssembler;
  private PolicySources policies;
  private io.spillway.edge.xds.AdsClient xdsClient;
  /** ext_authz's gRPC channels: built with the connection managers that need them, closed on shutdown. */
  /** The gRPC channels of ext_authz and the rate limit service, shared by both. */
  private io.spillway.edge.grpc.GrpcChannels grpcChannels;
  private final io.spillway.edge.runtime.Runtime runtime;
  private io.spillway.edge.runtime.DiskLayerWatcher runtimeWatcher;
  private final List<GuardDog> guardDogs = new java.util.ArrayList<>();
  private volatile boolean ready;
  private final ClusterManager.Resolver resolver;
  private volatile boolean healthCheckFailed;
  private final java.util.concurrent.atomic.AtomicBoolean stopping = new java.util.concurrent.atomic.AtomicBoolean();

  public EdgeServer(EdgeConfig config, Bootstrap bootstrap, ServerOptions options, StatsStore stats, Clock clock) {
    this(config, bootstrap, options, stats, clock, ClusterManager.Resolver.SYSTEM);
  }

  /** @param resolver resolves STRICT_DNS and LOGICAL_DNS names (on the control side, never on a worker) */
  public EdgeServer(EdgeConfig config, Bootstrap bootstrap, ServerOptions options, StatsStore stats, Clock clock,
      ClusterManager.Resolver resolver) {
    this.resolver = resolver;
    this.config = config;
    this.bootstrap = bootstrap;
    this.options = options;
    this.stats = stats;
    this.clock = clock;
    this.runtime = new io.spillway.edge.runtime.Runtime(config.runtime(), config.node().cluster(),
        stats.rootScope().scope("runtime"));
    this.routeFilters = io.spillway.edge.filters.HttpFilterRegistry.routeFilters(stats.rootScope(), nanoClock, runtime,
        options.concurrency());
    this.startedAt = clock.instant();
  }

  /** Starts everything and returns once every listener is bound and the edge is ready. */
  public void start() throws InterruptedException, SSLException {
    StringBuilder why = new StringBuilder();
    transport = Transport.choose(options.transport(), why);
    if (!why.isEmpty()) {
      log.warn("transport {}: {}", transport, why);
    }
    ByteBufAllocator allocator = PooledByteBufAllocator.DEFAULT;
    control = Executors.newSingleThreadScheduledExecutor(r -> {
      Thread t = new Thread(r, "spillway-main");
      t.setDaemon(true);
      controlThread = t;
      return t;
    });
    if (options.hotRestart().enabled() && transport == Transport.EPOLL) {
      hotRestart = HotRestart.start(options.hotRestart(), HotRestart.parentOf(this));
      hotRestart.checkParent();
    }
    acceptors = transport.newGroup(1, "spillway-accept");
    workerGroup = transport.newGroup(options.concurrency(), "spillway-worker");
    Map<EventLoop, Worker> workers = new HashMap<>();
    RandomGenerator.SplittableGenerator seeds =
        RandomGeneratorFactory.<RandomGenerator.SplittableGenerator>of("L64X128MixRandom").create(options.seed());
    int index = 0;
    for (EventExecutor e : workerGroup) {
      EventLoop loop = (EventLoop) e;
      workers.put(loop, new Worker(index++, loop, seeds.split(), transport.clientChannels(), allocator));
    }
    Scope root = stats.rootScope();
    registerServerStats(root);
    guardDogs.addAll(GuardDog.startBoth(config.watchdogs(), root, control, workers.values(), options.seed()));
    var logSettings = io.spillway.edge.accesslog.AccessLogManager.Settings.DEFAULTS;
    accessLogs = new io.spillway.edge.accesslog.AccessLogManager(root,
        new io.spillway.edge.accesslog.AccessLogManager.Settings(options.fileFlushInterval(), logSettings.flushBytes(),
            logSettings.maxBufferedBytes(), logSettings.maxLines()), runtime::snapshot);
    if (config.admin().isPresent()) {
      adminAccessLogs = accessLogs.compile(config.admin().get().accessLogs());
    }
    LoopLagProbe lag = new LoopLagProbe(workers.keySet().stream().toList());
    overload = OverloadManager.builder(config.overload())
        .stats(root)
        .nanoClock(System::nanoTime)
        .monitors(new StandardMonitors(StandardMonitors.Sources.system(
            () -> PooledByteBufAllocator.DEFAULT.metric().usedDirectMemory(),
            io.netty.util.internal.PlatformDependent::maxDirectMemory,
            lag::worstLagNanosSinceLastRead)))
        .build();
    config.overload().warnings().forEach(w -> log.warn("overload manager: {}", w));
    OverloadHooks httpOverload = OverloadHooks.of(overload);
    admission = new AdmissionController(options.policy().inbound(), stats);
    fleetCounter = options.fleetRedis().map(r -> new io.spillway.edge.redis.RedisFleetCounter(r.uri(), r.timeout(),
        r.keyPrefix(), nanoClock)).orElse(null);
    rateLimits = new io.spillway.edge.filters.policylimit.PolicyRateLimits(stats.customScope(), nanoClock, fleetCounter);
    java.util.Set<String> guarded = new java.util.LinkedHashSet<>(config.clusters().keySet());
    guarded.removeAll(XdsBootstrap.clusterNames(bootstrap));
    guards = io.spillway.edge.guard.GuardRegistry.build(guarded, options.policy().outbound(), stats);
    policies = new PolicySources(options.policy(), options.deploymentDefaults(), admission, guards, rateLimits,
        accessLogs.policyLog(), options.accessLogDir().toAbsolutePath().normalize());
    control.scheduleAtFixedRate(() -> admission.onExecutorLag(lag.worstLagNanosForAdmission()),
        100, 100, TimeUnit.MILLISECONDS);
    startRuntime();
    ListenerOverload listenerOverload = ListenerOverload.of(overload, runtime);
    clusters = new ClusterManager(root, options.concurrency(), control, resolver, options.seed());
    grpcChannels = new io.spillway.edge.grpc.GrpcChannels(clusters);
    healthCheckGroup = transport.newGroup(1, "spillway-health");
    clusters.setHealthCheckLoop(new io.spillway.edge.upstream.HealthCheckLoop(healthCheckGroup.next(),
        transport.clientChannels(), allocator));
    var newConnectionShed = overload.loadShedPoint(OverloadNames.CONNECTION_POOL_NEW_CONNECTION);
    if (newConnectionShed.isConfigured()) {
      clusters.setConnectionGate(worker -> !newConnectionShed.shouldShed(overload.state(), worker.random()));
    }
    clusters.initialize(config.clusters());
    this.httpOverload = httpOverload;
    this.listenerOverload = listenerOverload;
    this.workers = Map.copyOf(workers);
    this.allocator = allocator;
    ClusterManager clusterManager = clusters;
    tracers = new io.spillway.edge.tracing.Tracers(root, name -> {
      var c = clusterManager.get(name);
      return c == null ? java.util.List.of()
          : c.hosts().hosts().stream().map(io.spillway.edge.upstream.Host::address).toList();
    }, grpcChannels::channel, runtime::snapshot, new io.spillway.edge.tracing.Tracers.LocalNode(config.node().id(), config.node().cluster(),
        config.node().zone()));
    listenerAssembler = new ListenerAssembler(new ListenerAssembler.Parts(stats.rootScope(), this.workers, clusters,
        guards, admission, rateLimits, drain, httpOverload, listenerOverload, accessLogs,
        new io.spillway.edge.authz.grpc.GrpcAuthorizationClients(grpcChannels),
        new io.spillway.edge.rls.grpc.GrpcRateLimitClients(grpcChannels), runtime,
        nanoClock, () -> healthCheckFailed || drain.isDraining(), config.node().cluster(), tracers));
    for (ListenerConfig lc : config.listeners()) {
      Listener listener = listenerAssembler.listener(lc, lc.hasHttp() ? compileRoutes(lc.hcm().routeConfig()) : null);
      awaitFilters(listener);
      bind(listener);
      addListener(listener);
    }
    if (hotRestart != null) {
      hotRestart.drainParent(); // our listeners accept: the parent may stop
    }
    admin = AdminListener.start(this, config.admin().map(a -> a.address()), hotRestart);
    policies.watchFile(options.policyFile(), control, root);
    if (config.xds().isPresent()) {
      dynamic = new DynamicConfiguration(this, control,
          new io.spillway.edge.config.XdsResourceTranslator(io.spillway.edge.config.ExtensionRegistry.standard()),
          config.clusters(), config.listeners().stream().map(ListenerConfig::name).collect(Collectors.toSet()),
          XdsBootstrap.clusterNames(bootstrap), policies::decode);
      startXds(root);
    }
    stopAccepting = OverloadActions.wire(overload, config.overload(), listeners, options.concurrency(), root);
    OverloadActions.startShrinkHeap(overload, config.overload(), workerGroup, control,
        root.scope("overload").scope(OverloadNames.SHRINK_HEAP));
    statsSinks = StatsSinks.start(config.statsFlush(), stats, root, control);
    overload.start((delay, task) -> control.schedule(task, delay.toNanos(), TimeUnit.NANOSECONDS));
    ready = true;
    log.info("edge ready: {} workers on {}, {} listeners, {} clusters", options.concurrency(), transport,
        listeners.size(), config.clusters().size());
  }

  /**
   * Envoy's listener init: a listener is bound once its HTTP filters are ready (jwt_authn's
   * {@code async_fetch} without {@code fast_listener} waits for its first JWKS fetch, which ends
   * by its own timeout). The fetches run on the workers; only this start-up thread waits.
   */
  private static void awaitFilters(Listener listener) throws InterruptedException {
    if (listener.hcm() == null) {
      return;
    }
    for (var factory : listener.hcm().filterFactories()) {
      try {
        factory.initialized().toCompletableFuture().get();
      } catch (java.util.concurrent.ExecutionException e) {
        log.warn("listener {}: filter {} did not initialize: {}", listener.config().name(), factory.name(),
            e.getCause().toString());
      }
    }
  }

  /** The admin listener's access logs. */
  @Override
  public io.spillway.edge.accesslog.AccessLogs adminAccessLogs() {
    return adminAccessLogs;
  }

  /** Reopens every access log file and the {@code --log-path} file (logrotate: {@code POST /reopen_logs}, SIGUSR1). */
  @Override
  public void reopenAccessLogs() {
    if (accessLogs != null) {
      accessLogs.reopen();
    }
    if (org.slf4j.LoggerFactory.getILoggerFactory() instanceof ch.qos.logback.classic.LoggerContext context) {
      EdgeLogging.reopen(context); // --log-path
    }
  }

  /** Builds listeners for LDS updates as for the bootstrap's. */
  ListenerAssembler listenerAssembler() {
    return listenerAssembler;
  }

  /**
   * A route configuration compiled for the hot path: its routes' typed_per_filter_config through
   * the filters' compilers, their runtime_fraction read from the runtime.
   */
  RouteTable compileRoutes(io.spillway.edge.config.RouteConfig config) {
    return RouteTable.compile(config, routeFilters, runtime::snapshot);
  }

  /**
   * Opens the ADS stream and waits for the first complete configuration, at most
   * {@code initial_fetch_timeout} (after which the client has applied the last-known-good state, if
   * any); the edge then serves, and the stream keeps converging in the background.
   */
  private void startXds(Scope root) throws InterruptedException {
    io.spillway.edge.config.XdsClientConfig xc = config.xds().orElseThrow();
    if (options.xdsStateDir().isPresent()) {
      xc = xc.withStateDirectory(options.xdsStateDir().get());
    }
    xc = XdsBootstrap.withDeploymentDefaults(xc, options.deploymentDefaults());
    xdsClient = EdgeReports.attach(new io.spillway.edge.xds.AdsClient(xc, dynamic, root), this, xc.node().getId(), root);
    xdsClient.start();
    long waitMillis = xc.initialFetchTimeout().toMillis() + 2_000;
    try {
      xdsClient.ready().get(waitMillis, TimeUnit.MILLISECONDS);
    } catch (java.util.concurrent.TimeoutException e) {
      log.warn("xds: no configuration after {} ms; serving what there is and still trying", waitMillis);
    } catch (java.util.concurrent.ExecutionException e) {
      log.warn("xds: the first fetch failed ({}); serving what there is and still trying", e.getCause().toString());
    }
  }

  /** The ADS client's state, or empty for a static edge. */
  @Override
  public java.util.Optional<io.spillway.edge.xds.XdsStatus> xdsStatus() {
    return xdsClient == null ? java.util.Optional.empty() : java.util.Optional.of(xdsClient.status());
  }

  /** The control plane's policy, or empty when it has none for this edge (main thread). */
  void setControlPlanePolicy(java.util.Optional<ControlPlanePolicy> policy) {
    policies.setControlPlanePolicy(policy);
  }

  /** Where xDS-delivered resources are applied, or null for a static edge. */
  public io.spillway.edge.xds.XdsConfigSink xdsSink() {
    return dynamic;
  }

  /** The outbound guards of the upstream clusters. */
  io.spillway.edge.guard.GuardRegistry guards() {
    return guards;
  }

  /** Whether the calling thread is the main (control) thread. */
  boolean onMainThread() {
    return Thread.currentThread() == controlThread;
  }

  /** Binds a listener's socket; blocking, on the main thread. */
  void bind(Listener listener) throws InterruptedException {
    var address = listener.config().address();
    var taken = hotRestart == null ? java.util.Optional.<io.netty.channel.epoll.EpollServerSocketChannel>empty()
        : hotRestart.takeListenSocket(HotRestartMessage.address(address.host(), address.port()));
    if (taken.isPresent()) {
      listener.adopt(acceptors, workerGroup, taken.get(), allocator);
    } else {
      listener.bind(acceptors, workerGroup, transport.serverChannels(), allocator);
    }
    if (stopAccepting != null && overload.state().isSaturated(stopAccepting)) {
      listener.pauseAccepting(true);
    }
    log.info("listener {} on {} ({})", listener.config().name(), listener.localAddress(),
        listener.config().hasHttp() ? listener.config().hcm().codecType() : "tcp_proxy");
  }

  /** Makes a bound listener part of the server: stats, drain, overload actions and admin see it. */
  void addListener(Listener listener) {
    listeners.add(listener);
    if (listener.hcm() != null) {
      connectionManagers.add(listener.hcm());
    }
  }

  /** Records the connection manager of an in-place listener replacement. */
  void addConnectionManager(HttpConnectionManager hcm) {
    connectionManagers.add(hcm);
  }

  /**
   * Takes a listener out of service: stops accepting, asks its connections to drain and closes
   * what is left after the drain time.
   */
  void retireListener(Listener listener) {
    listeners.remove(listener);
    listener.stopAccepting();
    listener.drainConnections();
    control.schedule(listener::closeConnections, options.drainTime().toMillis(), TimeUnit.MILLISECONDS);
  }

  /** Closes the admin listener (a hot restart's child binds its own). */
  void closeAdmin() {
    if (admin != null) {
      admin.close();
    }
  }

  Duration drainTime() {
    return options.drainTime();
  }

  @Override
  public String hotRestartVersion() {
    return hotRestart == null ? "disabled" : HotRestartOptions.VERSION;
  }

  @Override
  public int restartEpoch() {
    return options.hotRestart().epoch();
  }

  /**
   * shrink_heap, the JVM way: while the action is active, every {@code timer_interval} the pooled
   * allocator's memory that buffers do not hold (its "unfreed" memory) is compared with
   * {@code max_unfreed_memory_bytes}; above it, every worker trims its thread-local buffer cache,
   * which hands cached chunks back to the arenas and lets empty chunks be released.
   */
  @Override
  public void statsRead() {
    if (statsSinks != null) {
      statsSinks.statsRead();
    }
  }

  private void registerServerStats(Scope root) {
    Scope server = root.scope("server");
    Runtime rt = Runtime.getRuntime();
    // Envoy's ServerState: LIVE 0, DRAINING 1 (also while /healthcheck/fail is in force), PRE_INITIALIZING 2.
    server.gauge("live", () -> isReady() ? 1 : 0);
    server.gauge("state", () -> drain.isDraining() || healthCheckFailed ? 1 : ready ? 0 : 2);
    server.gauge("uptime", () -> Duration.between(startedAt, clock.instant()).toSeconds());
    server.gauge("concurrency", options::concurrency);
    server.gauge("hot_restart_epoch", () -> options.hotRestart().epoch());
    server.gauge("memory_heap_size", rt::totalMemory);
    server.gauge("memory_allocated", () -> rt.totalMemory() - rt.freeMemory());
    server.gauge("total_connections", () -> {
      long n = 0;
      for (Listener l : listeners) {
        n += l.connectionCount();
      }
      return n;
    });
  }

  /**
   * Drains and stops: stop accepting, ask connections to finish (HTTP/1 close after the response
   * in flight, HTTP/2 GOAWAY), wait up to {@code drainTime} for in-flight requests, then close
   * everything. Safe to call more than once.
   */
  public void shutdown(Duration drainTime) {
    if (!stopping.compareAndSet(false, true)) {
      return;
    }
    // Loops that stop for good must not look like stalled ones.
    guardDogs.forEach(GuardDog::close);
    if (xdsClient != null) {
      xdsClient.close();
    }
    log.info("draining for up to {} s", drainTime.toSeconds());
    drain.startDraining();
    for (Listener l : listeners) {
      l.stopAccepting();
      l.drainConnections();
    }
    long deadline = System.nanoTime() + drainTime.toNanos();
    while (System.nanoTime() < deadline && (activeRequests() > 0 || openConnections() > 0)) {
      sleepQuietly(20);
    }
    long left = activeRequests();
    if (left > 0) {
      log.warn("drain time over with {} requests in flight; closing", left);
    }
    for (Listener l : listeners) {
      l.closeConnections();
    }
    if (admin != null) {
      admin.shutdown();
    }
    if (hotRestart != null) {
      hotRestart.close();
    }
    if (overload != null) {
      overload.stop();
    }
    shutdownGroup(acceptors);
    shutdownGroup(workerGroup);
    shutdownGroup(healthCheckGroup);
    if (tracers != null) {
      tracers.close(); // after the loops: the last spans are queued; before the gRPC channels (OTLP/gRPC)
    }
    if (grpcChannels != null) {
      grpcChannels.close(); // after the workers: no check or rate limit call starts any more
    }
    if (fleetCounter != null) {
      fleetCounter.close(); // after the workers, as the gRPC channels
    }
    if (accessLogs != null) {
      accessLogs.close(); // after the loops: the connections' last lines are in
    }
    if (runtimeWatcher != null) {
      runtimeWatcher.close();
    }
    if (control != null) {
      control.shutdownNow();
    }
    if (statsSinks != null) {
      statsSinks.close();
    }
    log.info("edge stopped");
    terminated.countDown();
  }

  /** The watch on the runtime's disk layers' links, when it has any. */
  private void startRuntime() {
    runtimeWatcher = io.spillway.edge.runtime.DiskLayerWatcher.startIfNeeded(runtime);
    if (runtime.snapshot().get(ListenerOverload.GLOBAL_MAX_CONNECTIONS_KEY).isPresent()) {
      log.warn("runtime key {} is deprecated; configure the {} resource monitor instead{}",
          ListenerOverload.GLOBAL_MAX_CONNECTIONS_KEY, OverloadNames.GLOBAL_DOWNSTREAM_MAX_CONNECTIONS,
          overload.globalConnections().limit().isPresent() ? " (the monitor is configured: the key is ignored)" : "");
    }
  }

  @Override
  public io.spillway.edge.runtime.Runtime runtime() {
    return runtime;
  }

  private static void shutdownGroup(EventLoopGroup g) {
    if (g != null) {
      g.shutdownGracefully(0, 2, TimeUnit.SECONDS).awaitUninterruptibly(5, TimeUnit.SECONDS);
    }
  }

  private static void sleepQuietly(long ms) {
    try {
      Thread.sleep(ms);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }

  /** Stops listeners from accepting and drains connections, without exiting (admin /drain_listeners). */
  @Override
  public void drainListeners(boolean graceful) {
    drain.startDraining();
    for (Listener l : listeners) {
      l.stopAccepting();
      if (graceful) {
        l.drainConnections();
      }
    }
  }

  public void awaitTermination() throws InterruptedException {
    terminated.await();
  }

  @Override
  public long activeRequests() {
    // Connection managers with the same stat prefix share one gauge: count each gauge once.
    java.util.Set<Object> seen = java.util.Collections.newSetFromMap(new java.util.IdentityHashMap<>());
    long n = 0;
    for (HttpConnectionManager hcm : connectionManagers) {
      if (seen.add(hcm.stats().downstreamRqActive)) {
        n += hcm.stats().downstreamRqActive.value();
      }
    }
    return n;
  }

  private long openConnections() {
    long n = 0;
    for (Listener l : listeners) {
      n += l.connectionCount();
    }
    return n;
  }

  @Override
  public EdgeConfig config() {
    return config;
  }

  @Override
  public Bootstrap bootstrap() {
    return bootstrap;
  }

  public ServerOptions options() {
    return options;
  }

  @Override
  public StatsStore stats() {
    return stats;
  }

  @Override
  public ClusterManager clusters() {
    return clusters;
  }

  @Override
  public List<Listener> listeners() {
    return List.copyOf(listeners);
  }

  @Override
  public Instant startedAt() {
    return startedAt;
  }

  @Override
  public Clock clock() {
    return clock;
  }

  @Override
  public void adminConnectionOpened() {
    if (overload != null) {
      overload.globalConnections().allocateIgnoringLimit();
    }
  }

  @Override
  public void adminConnectionClosed() {
    if (overload != null) {
      overload.globalConnections().deallocate();
    }
  }

  @Override
  public AdmissionController admission() {
    return admission;
  }

  @Override
  public io.spillway.edge.filters.policylimit.PolicyRateLimits policyRateLimits() {
    return rateLimits;
  }

  @Override
  public OverloadDescription overload() {
    return overload == null ? null : overload.describe();
  }

  @Override
  public int concurrency() {
    return options.concurrency();
  }

  @Override
  public void exitAfterDrain(Duration drainTime) {
    Thread t = new Thread(() -> shutdown(drainTime), "spillway-exit");
    t.setDaemon(false);
    t.start();
  }

  @Override
  public String transportName() {
    return transport == null ? "" : transport.name().toLowerCase(java.util.Locale.ROOT);
  }

  @Override
  public boolean isReady() {
    return ready && !drain.isDraining() && !healthCheckFailed;
  }

  @Override
  public boolean isDraining() {
    return drain.isDraining();
  }

  @Override
  public boolean healthCheckFailed() {
    return healthCheckFailed;
  }

  @Override
  public void setHealthCheckFailed(boolean failed) {
    healthCheckFailed = failed;
  }

  /** The admin listener's bound address, or null without one. */
  public java.net.InetSocketAddress adminAddress() {
    return admin == null ? null : admin.localAddress();
  }

  /** Runs a control-path task on the main thread (never an event loop). */
  public void runOnMain(Runnable task) {
    control.execute(task);
  }
}
