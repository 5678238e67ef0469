package io.spillway.edge.server;

import java.nio.file.Path;
import java.time.Duration;
import java.util.Optional;

/**
 * Process options from the command line.
 *
 * @param concurrency worker event loops
 * @param drainTime how long a drain waits for in-flight requests
 * @param transport "auto" (epoll, else NIO), "epoll", "io_uring" or "nio"
 * @param seed seeds every worker's random source (load balancing, jitter); fixed in tests
 * @param serviceNode overrides {@code node.id}
 * @param serviceCluster overrides {@code node.cluster}
 * @param policy the overload policy in force at start: policy file, else HTTP_ADMISSION_* /
 *     HTTP_CLIENT_GUARD_* environment, else built-in defaults
 * @param deploymentDefaults the HTTP_ADMISSION_* / HTTP_CLIENT_GUARD_* baseline a policy from the
 *     control plane falls back to field by field
 * @param xdsStateDir where the last-known-good xDS state is kept, when set
 * @param policyFile the {@code --overload-policy} file, watched for changes, when set
 * @param fileFlushInterval how often access log files are flushed (Envoy's {@code --file-flush-interval-msec})
 * @param hotRestart {@code --restart-epoch}, {@code --base-id}, {@code --parent-shutdown-time-s},
 *     {@code --disable-hot-restart}
 * @param reportInterval {@code --report-interval}: how often the gauges are reported to central
 *     (when it advertises the report service); zero for never
 * @param accessLogDir {@code --access-log-dir}: the directory the control plane's {@code accessLog}
 *     section may write files under (default {@code logs}, relative to the working directory)
 * @param fleetRedis {@code --redis-uri}, {@code --redis-timeout}, {@code --redis-key-prefix}: where
 *     the policy's fleet-wide rate limits count; empty: such limits are refused
 */
public record ServerOptions(
    int concurrency,
    Duration drainTime,
    String transport,
    long seed,
    String serviceNode,
    String serviceCluster,
    io.spillway.policy.EffectivePolicy policy,
    io.spillway.policy.DeploymentDefaults deploymentDefaults,
    Optional<Path> xdsStateDir,
    Optional<Path> policyFile,
    Duration fileFlushInterval,
    HotRestartOptions hotRestart,
    Duration reportInterval,
    Path accessLogDir,
    Optional<FleetRedis> fleetRedis) {

  /** Envoy's default {@code --file-flush-interval-msec}: 10 s. */
  public static final Duration DEFAULT_FILE_FLUSH_INTERVAL = Duration.ofSeconds(10);
  /** The default {@code --report-interval}: 5 s. */
  public static final Duration DEFAULT_REPORT_INTERVAL = Duration.ofSeconds(5);

  /** The default {@code --access-log-dir}: {@code logs} under the working directory. */
  public static final Path DEFAULT_ACCESS_LOG_DIR = Path.of("logs");

  /** Checks the values. */
  public ServerOptions {
    if (reportInterval == null || reportInterval.isNegative()) {
      throw new IllegalArgumentException("the report interval must be zero or positive");
    }
    if (accessLogDir == null) {
      throw new IllegalArgumentException("the access log directory must be set");
    }
    if (fleetRedis == null) {
      throw new IllegalArgumentException("fleetRedis must be set (empty for none)");
    }
  }

  /**
   * The Redis of fleet-wide rate limits.
   *
   * @param uri {@code redis://host:port[/db]}
   * @param timeout the bound on one call; a request waits at most this long for the shared count
   * @param keyPrefix put before every key, so fleets (or environments) can share one Redis
   */
  public record FleetRedis(String uri, Duration timeout, String keyPrefix) {
    /** The default {@code --redis-timeout}: 20 ms. */
    public static final Duration DEFAULT_TIMEOUT = Duration.ofMillis(20);
    /** The default {@code --redis-key-prefix}. */
    public static final String DEFAULT_KEY_PREFIX = "spillway:";
  }

  /** Without a Redis for fleet-wide limits. */
  public ServerOptions(int concurrency, Duration drainTime, String transport, long seed, String serviceNode,
      String serviceCluster, io.spillway.policy.EffectivePolicy policy,
      io.spillway.policy.DeploymentDefaults deploymentDefaults, Optional<Path> xdsStateDir, Optional<Path> policyFile,
      Duration fileFlushInterval, HotRestartOptions hotRestart, Duration reportInterval, Path accessLogDir) {
    this(concurrency, drainTime, transport, seed, serviceNode, serviceCluster, policy, deploymentDefaults, xdsStateDir,
        policyFile, fileFlushInterval, hotRestart, reportInterval, accessLogDir, Optional.empty());
  }

  /** With the default access log directory. */
  public ServerOptions(int concurrency, Duration drainTime, String transport, long seed, String serviceNode,
      String serviceCluster, io.spillway.policy.EffectivePolicy policy,
      io.spillway.policy.DeploymentDefaults deploymentDefaults, Optional<Path> xdsStateDir, Optional<Path> policyFile,
      Duration fileFlushInterval, HotRestartOptions hotRestart, Duration reportInterval) {
    this(concurrency, drainTime, transport, seed, serviceNode, serviceCluster, policy, deploymentDefaults, xdsStateDir,
        policyFile, fileFlushInterval, hotRestart, reportInterval, DEFAULT_ACCESS_LOG_DIR);
  }

  /** With the default report interval. */
  public ServerOptions(int concurrency, Duration drainTime, String transport, long seed, String serviceNode,
      String serviceCluster, io.spillway.policy.EffectivePolicy policy,
      io.spillway.policy.DeploymentDefaults deploymentDefaults, Optional<Path> xdsStateDir, Optional<Path> policyFile,
      Duration fileFlushInterval, HotRestartOptions hotRestart) {
    this(concurrency, drainTime, transport, seed, serviceNode, serviceCluster, policy, deploymentDefaults, xdsStateDir,
        policyFile, fileFlushInterval, hotRestart, DEFAULT_REPORT_INTERVAL);
  }

  /** Without hot restart. */
  public ServerOptions(int concurrency, Duration drainTime, String transport, long seed, String serviceNode,
      String serviceCluster, io.spillway.policy.EffectivePolicy policy,
      io.spillway.policy.DeploymentDefaults deploymentDefaults, Optional<Path> xdsStateDir, Optional<Path> policyFile,
      Duration fileFlushInterval) {
    this(concurrency, drainTime, transport, seed, serviceNode, serviceCluster, policy, deploymentDefaults, xdsStateDir,
        policyFile, fileFlushInterval, HotRestartOptions.disabled());
  }

  /** With Envoy's file flush interval. */
  public ServerOptions(int concurrency, Duration drainTime, String transport, long seed, String serviceNode,
      String serviceCluster, io.spillway.policy.EffectivePolicy policy,
      io.spillway.policy.DeploymentDefaults deploymentDefaults, Optional<Path> xdsStateDir, Optional<Path> policyFile) {
    this(concurrency, drainTime, transport, seed, serviceNode, serviceCluster, policy, deploymentDefaults, xdsStateDir,
        policyFile, DEFAULT_FILE_FLUSH_INTERVAL);
  }

  /** Without a policy file to watch. */
  public ServerOptions(int concurrency, Duration drainTime, String transport, long seed, String serviceNode,
      String serviceCluster, io.spillway.policy.EffectivePolicy policy,
      io.spillway.policy.DeploymentDefaults deploymentDefaults, Optional<Path> xdsStateDir) {
    this(concurrency, drainTime, transport, seed, serviceNode, serviceCluster, policy, deploymentDefaults, xdsStateDir,
        Optional.empty());
  }

  /** With the built-in deployment defaults and no xDS state directory. */
  public ServerOptions(int concurrency, Duration drainTime, String transport, long seed, String serviceNode,
      String serviceCluster, io.spillway.policy.EffectivePolicy policy) {
    this(concurrency, drainTime, transport, seed, serviceNode, serviceCluster, policy,
        io.spillway.policy.DeploymentDefaults.builtIn(), Optional.empty());
  }

  public static ServerOptions defaults() {
    return new ServerOptions(Runtime.getRuntime().availableProcessors(), Duration.ofSeconds(600), "auto",
        System.nanoTime(), null, null,
        io.spillway.policy.EffectivePolicy.resolve(null, io.spillway.policy.DeploymentDefaults.builtIn()));
  }

  public ServerOptions withConcurrency(int n) {
    return new ServerOptions(n, drainTime, transport, seed, serviceNode, serviceCluster, policy, deploymentDefaults,
        xdsStateDir, policyFile, fileFlushInterval, hotRestart, reportInterval, accessLogDir, fleetRedis);
  }

  public ServerOptions withDrainTime(Duration d) {
    return new ServerOptions(concurrency, d, transport, seed, serviceNode, serviceCluster, policy, deploymentDefaults,
        xdsStateDir, policyFile, fileFlushInterval, hotRestart, reportInterval, accessLogDir, fleetRedis);
  }

  public ServerOptions withFileFlushInterval(Duration d) {
    return new ServerOptions(concurrency, drainTime, transport, seed, serviceNode, serviceCluster, policy,
        deploymentDefaults, xdsStateDir, policyFile, d, hotRestart, reportInterval, accessLogDir, fleetRedis);
  }

  public ServerOptions withHotRestart(HotRestartOptions h) {
    return new ServerOptions(concurrency, drainTime, transport, seed, serviceNode, serviceCluster, policy,
        deploymentDefaults, xdsStateDir, policyFile, fileFlushInterval, h, reportInterval, accessLogDir, fleetRedis);
  }

  public ServerOptions withReportInterval(Duration d) {
    return new ServerOptions(concurrency, drainTime, transport, seed, serviceNode, serviceCluster, policy,
        deploymentDefaults, xdsStateDir, policyFile, fileFlushInterval, hotRestart, d, accessLogDir, fleetRedis);
  }

  public ServerOptions withAccessLogDir(Path dir) {
    return new ServerOptions(concurrency, drainTime, transport, seed, serviceNode, serviceCluster, policy,
        deploymentDefaults, xdsStateDir, policyFile, fileFlushInterval, hotRestart, reportInterval, dir, fleetRedis);
  }

  public ServerOptions withFleetRedis(Optional<FleetRedis> redis) {
    return new ServerOptions(concurrency, drainTime, transport, seed, serviceNode, serviceCluster, policy,
        deploymentDefaults, xdsStateDir, policyFile, fileFlushInterval, hotRestart, reportInterval, accessLogDir, redis);
  }
}
