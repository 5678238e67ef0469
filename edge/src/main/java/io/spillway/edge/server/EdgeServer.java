package io.spillway.edge.server;

import io.envoyproxy.envoy.config.bootstrap.v3.Bootstrap;
import io.netty.buffer.ByteBufAllocator;
import io.netty.buffer.PooledByteBufAllocator;
import io.netty.channel.EventLoop;
import io.netty.channel.EventLoopGroup;
import io.netty.util.concurrent.EventExecutor;
import io.spillway.edge.admin.AdminContext;
import io.spillway.edge.admin.AdminServer;
import io.spillway.edge.config.EdgeConfig;
import io.spillway.edge.config.ListenerConfig;
import io.spillway.edge.admission.AdmissionController;
import io.spillway.edge.config.OverloadNames;
import io.spillway.edge.http.DrainSignal;
import io.spillway.edge.http.OverloadHooks;
import io.spillway.edge.listener.ListenerOverload;
import io.spillway.edge.overload.ActionIndex;
import io.spillway.edge.overload.OverloadDescription;
import io.spillway.edge.overload.OverloadManager;
import io.spillway.edge.overload.monitor.StandardMonitors;
import io.spillway.edge.http.HcmStats;
import io.spillway.edge.http.HttpConnectionManager;
import io.spillway.edge.listener.Listener;
import io.spillway.edge.listener.ListenerStats;
import io.spillway.edge.router.RouteTable;
import io.spillway.edge.stats.Scope;
import io.spillway.edge.stats.StatsStore;
import io.spillway.edge.upstream.ClusterManager;
import io.spillway.edge.upstream.Worker;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.random.RandomGenerator;
import java.util.random.RandomGeneratorFactory;
import javax.net.ssl.SSLException;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The edge process's server: the main (control) thread's services, N worker event loops, the
 * cluster manager, the listeners and the admin listener; start-up, drain and shutdown.
 */
public final class EdgeServer implements AdminContext {
  private static final Logger log = LoggerFactory.getLogger(EdgeServer.class);

  private static final io.spillway.edge.config.SocketAddress DEFAULT_ADMIN =
      new io.spillway.edge.config.SocketAddress("127.0.0.1", 9901);

  private final EdgeConfig config;
  private final Bootstrap bootstrap;
  private final ServerOptions options;
  private final StatsStore stats;
  private final Clock clock;
  private final Instant startedAt;
  private final DrainSignal drain = new DrainSignal();
  private final CountDownLatch terminated = new CountDownLatch(1);
  private final List<Listener> listeners = new ArrayList<>();
  private final List<HttpConnectionManager> connectionManagers = new ArrayList<>();
  private ScheduledExecutorService control;
  private Transport transport;
  private EventLoopGroup acceptors;
  private EventLoopGroup workerGroup;
  private EventLoopGroup adminGroup;
  private ClusterManager clusters;
  private OverloadManager overload;
  private AdmissionController admission;
  private io.spillway.edge.guard.GuardRegistry guards;
  private AdminServer admin;
  private volatile boolean ready;
  private volatile boolean healthCheckFailed;
  private final java.util.concurrent.atomic.AtomicBoolean stopping = new java.util.concurrent.atomic.AtomicBoolean();

  public EdgeServer(EdgeConfig config, Bootstrap bootstrap, ServerOptions options, StatsStore stats, Clock clock) {
    this.config = config;
    this.bootstrap = bootstrap;
    this.options = options;
    this.stats = stats;
    this.clock = clock;
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
      return t;
    });
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
    guards = io.spillway.edge.guard.GuardRegistry.build(config.clusters().keySet(), options.policy().outbound(), stats);
    control.scheduleAtFixedRate(() -> admission.onExecutorLag(lag.worstLagNanosForAdmission()),
        100, 100, TimeUnit.MILLISECONDS);
    ListenerOverload listenerOverload = ListenerOverload.of(overload);
    clusters = new ClusterManager(root, options.concurrency(), control, ClusterManager.Resolver.SYSTEM, options.seed());
    var newConnectionShed = overload.loadShedPoint(OverloadNames.CONNECTION_POOL_NEW_CONNECTION);
    if (newConnectionShed.isConfigured()) {
      clusters.setConnectionGate(worker -> !newConnectionShed.shouldShed(overload.state(), worker.random()));
    }
    clusters.initialize(config.clusters());
    for (ListenerConfig lc : config.listeners()) {
      HcmStats hcmStats = new HcmStats(root.taggedScope("http", lc.hcm().statPrefix(), "envoy_http_conn_manager_prefix"));
      HttpConnectionManager hcm = new HttpConnectionManager(lc.hcm(), hcmStats,
          RouteTable.compile(lc.hcm().routeConfig()), clusters, drain, lc.tls().isPresent(),
          lc.perConnectionBufferLimitBytes(), clock, httpOverload, admission, guards);
      ListenerStats listenerStats = new ListenerStats(root.taggedScope("listener", Listener.statName(lc),
          "envoy_listener_address"));
      Listener listener = new Listener(lc, hcm, listenerStats, workers,
          lc.tls().isPresent() ? TlsContexts.server(lc.tls().get(), lc.hcm().codecType()) : null,
          listenerOverload);
      listener.bind(acceptors, workerGroup, transport.serverChannels(), allocator);
      listeners.add(listener);
      connectionManagers.add(hcm);
      log.info("listener {} on {} ({})", lc.name(), listener.localAddress(), lc.hcm().codecType());
    }
    startAdmin();
    ActionIndex stopAccepting = overload.actionHandle(OverloadNames.STOP_ACCEPTING_CONNECTIONS);
    if (stopAccepting.isConfigured()) {
      overload.addStateListener(state -> {
        boolean paused = state.isSaturated(stopAccepting);
        listeners.forEach(l -> l.pauseAccepting(paused));
      });
    }
    startShrinkHeap(root.scope("overload").scope(OverloadNames.SHRINK_HEAP));
    ActionIndex closeIdle = overload.actionHandle(OverloadNames.CLOSE_IDLE_HTTP_CONNECTIONS);
    if (closeIdle.isConfigured()) {
      // Idle connections go first: at state s, those idle for at least (1 - s) of the connection
      // manager's idle timeout; saturated, every idle connection.
      overload.addStateListener(state -> {
        double s = state.actionState(closeIdle);
        if (s <= 0) {
          return;
        }
        for (Listener l : listeners) {
          long idle = l.hcm().config().idleTimeout().toNanos();
          long threshold = s >= 1 || idle <= 0 ? 0 : (long) (idle * (1 - s));
          l.signalConnections(new io.spillway.edge.http.DownstreamEvents.CloseIdle(threshold));
        }
      });
    }
    overload.start((delay, task) -> control.schedule(task, delay.toNanos(), TimeUnit.NANOSECONDS));
    ready = true;
    log.info("edge ready: {} workers on {}, {} listeners, {} clusters", options.concurrency(), transport,
        listeners.size(), config.clusters().size());
  }

  /**
   * The admin listener: the bootstrap's {@code admin.address}, else 127.0.0.1:9901. A configured
   * address that cannot be bound fails start-up; the implicit default only logs a warning.
   */
  private void startAdmin() throws InterruptedException {
    adminGroup = Transport.NIO.newGroup(1, "spillway-admin");
    admin = new AdminServer(this);
    if (config.admin().isPresent()) {
      admin.bind(adminGroup, config.admin().get().address());
    } else {
      try {
        admin.bind(adminGroup, DEFAULT_ADMIN);
      } catch (Exception e) {
        log.warn("no admin listener: the default {} cannot be bound ({}); set admin.address", DEFAULT_ADMIN, e.toString());
        admin = null;
        return;
      }
    }
    log.info("admin listener on {}", admin.localAddress());
  }

  /**
   * shrink_heap, the JVM way: while the action is active, every {@code timer_interval} the pooled
   * allocator's memory that buffers do not hold (its "unfreed" memory) is compared with
   * {@code max_unfreed_memory_bytes}; above it, every worker trims its thread-local buffer cache,
   * which hands cached chunks back to the arenas and lets empty chunks be released.
   */
  private void startShrinkHeap(Scope stats) {
    ActionIndex shrink = overload.actionHandle(OverloadNames.SHRINK_HEAP);
    if (!shrink.isConfigured()) {
      return;
    }
    io.spillway.edge.config.OverloadConfig.ShrinkHeap settings = config.overload().actions().stream()
        .filter(a -> a.name().equals(OverloadNames.SHRINK_HEAP))
        .map(a -> a.settings().orElse(null))
        .filter(io.spillway.edge.config.OverloadConfig.ShrinkHeap.class::isInstance)
        .map(io.spillway.edge.config.OverloadConfig.ShrinkHeap.class::cast)
        .findFirst().orElse(io.spillway.edge.config.OverloadConfig.ShrinkHeap.DEFAULTS);
    var shrinkCount = stats.counter("shrink_count");
    PooledByteBufAllocator alloc = PooledByteBufAllocator.DEFAULT;
    long every = Math.max(1, settings.timerInterval().toMillis());
    control.scheduleWithFixedDelay(() -> {
      if (!overload.state().isActive(shrink)) {
        return;
      }
      var m = alloc.metric();
      long unfreed = m.usedDirectMemory() + m.usedHeapMemory() - alloc.pinnedDirectMemory() - alloc.pinnedHeapMemory();
      if (unfreed > settings.maxUnfreedMemoryBytes()) {
        for (EventExecutor e : workerGroup) {
          e.execute(alloc::trimCurrentThreadCache);
        }
        shrinkCount.inc();
      }
    }, every, every, TimeUnit.MILLISECONDS);
  }

  private void registerServerStats(Scope root) {
    Scope server = root.scope("server");
    Runtime rt = Runtime.getRuntime();
    // Envoy's ServerState: LIVE 0, DRAINING 1 (also while /healthcheck/fail is in force), PRE_INITIALIZING 2.
    server.gauge("live", () -> isReady() ? 1 : 0);
    server.gauge("state", () -> drain.isDraining() || healthCheckFailed ? 1 : ready ? 0 : 2);
    server.gauge("uptime", () -> Duration.between(startedAt, clock.instant()).toSeconds());
    server.gauge("concurrency", options::concurrency);
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
      admin.close();
    }
    if (overload != null) {
      overload.stop();
    }
    shutdownGroup(acceptors);
    shutdownGroup(workerGroup);
    shutdownGroup(adminGroup);
    if (control != null) {
      control.shutdownNow();
    }
    log.info("edge stopped");
    terminated.countDown();
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
    long n = 0;
    for (HttpConnectionManager hcm : connectionManagers) {
      n += hcm.stats().downstreamRqActive.value();
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
