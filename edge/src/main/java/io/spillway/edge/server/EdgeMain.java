package io.spillway.edge.server;

import ch.qos.logback.classic.Level;
import io.envoyproxy.envoy.config.bootstrap.v3.Bootstrap;
import io.spillway.edge.config.BootstrapLoader;
import io.spillway.edge.config.ConfigException;
import io.spillway.edge.config.ConfigTranslator;
import io.spillway.edge.config.EdgeConfig;
import io.spillway.edge.config.XdsClientConfig;
import io.spillway.edge.stats.StatsStore;
import java.io.PrintWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.util.concurrent.Callable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;
import picocli.CommandLine;

/**
 * {@code spillway edge}: Envoy's command line, for the options Spillway supports. Exit codes: 0
 * after a clean drain (SIGTERM, /quitquitquit) or a valid {@code --mode validate}; 1 for an
 * invalid configuration; 2 for bad command-line usage.
 */
@Command(name = "spillway edge", mixinStandardHelpOptions = true, sortOptions = false,
    versionProvider = EdgeMain.Version.class,
    description = "Runs a Spillway edge from an Envoy v3 bootstrap (YAML or JSON).")
public final class EdgeMain implements Callable<Integer> {

  @Option(names = {"-c", "--config-path"}, paramLabel = "FILE", description = "Bootstrap file (.yaml, .yml or .json).")
  Path configPath;

  @Option(names = "--config-yaml", paramLabel = "YAML", description = "Inline bootstrap YAML, merged over --config-path's (or used alone).")
  String configYaml;

  @Option(names = "--mode", defaultValue = "serve", description = "serve (default) or validate: parse and check the configuration, print the first problem, exit 1 if invalid.")
  String mode;

  @Option(names = "--concurrency", paramLabel = "N", description = "Worker event loops (default: available processors).")
  Integer concurrency;

  @Option(names = "--drain-time-s", paramLabel = "S", defaultValue = "600", description = "How long a drain waits for in-flight requests (default 600).")
  int drainTimeSeconds;

  @Option(names = "--restart-epoch", paramLabel = "N", defaultValue = "0",
      description = "Hot restart generation: 0 for the first process; N takes the listening sockets over from N-1 and makes it drain.")
  int restartEpoch;

  @Option(names = "--base-id", paramLabel = "N", defaultValue = "0",
      description = "Names the hot restart socket; independent edges on one host need different values (default 0).")
  int baseId;

  @Option(names = "--parent-shutdown-time-s", paramLabel = "S", defaultValue = "900",
      description = "After a hot restart the parent exits this long after the child took over, at the latest (default 900).")
  int parentShutdownTimeSeconds;

  @Option(names = "--disable-hot-restart", description = "No hot restart socket: this edge can neither hand over nor take over listeners.")
  boolean disableHotRestart;

  @Option(names = "--hot-restart-version", description = "Print the hot restart compatibility version and exit.")
  boolean hotRestartVersion;

  @Option(names = "--file-flush-interval-msec", paramLabel = "MS", defaultValue = "10000",
      description = "How often access log files are flushed, in milliseconds (default 10000, as Envoy).")
  long fileFlushIntervalMillis;

  @Option(names = "--access-log-dir", paramLabel = "DIR", defaultValue = "logs",
      description = "The directory the control plane's accessLog section writes its file under (created when needed; "
          + "default logs, relative to the working directory).")
  Path accessLogDir;

  @Option(names = {"-l", "--log-level"}, defaultValue = "info", description = "trace, debug, info, warning, error, critical or off.")
  String logLevel;

  @Option(names = "--log-path", paramLabel = "FILE",
      description = "Write the edge's log to FILE (appended; reopened by POST /reopen_logs and SIGUSR1) instead of stderr.")
  Path logPath;

  @Option(names = "--log-format", paramLabel = "FORMAT",
      description = "The log line in Envoy's format flags, e.g. '[%%Y-%%m-%%d %%T.%%e][%%t][%%l][%%n] %%v'.")
  String logFormat;

  @Option(names = "--log-format-escaped", description = "Escape control characters (and stack traces) so every log entry is one line.")
  boolean logFormatEscaped;

  @Option(names = "--component-log-level", paramLabel = "C:L,...",
      description = "Levels per component (an edge package such as upstream or http, or a logger name), e.g. upstream:debug,http:trace.")
  String componentLogLevel;

  @Option(names = "--service-node", description = "Overrides node.id.")
  String serviceNode;

  @Option(names = "--service-cluster", description = "Overrides node.cluster.")
  String serviceCluster;

  @Option(names = "--transport", defaultValue = "auto", description = "auto (epoll, else NIO), epoll, io_uring or nio.")
  String transport;

  @Option(names = "--overload-policy", paramLabel = "FILE",
      description = "OverloadPolicy JSON (inbound admission, outbound guard). Unset fields fall back to the "
          + "HTTP_ADMISSION_* / HTTP_CLIENT_GUARD_* environment, then to built-in defaults.")
  Path overloadPolicy;

  @Option(names = "--xds-state-dir", paramLabel = "DIR",
      description = "Keep the last configuration accepted over xDS in DIR and start from it when the control plane "
          + "cannot be reached at start-up.")
  Path xdsStateDir;

  @Option(names = "--xds-overload-policy", paramLabel = "auto|true|false", defaultValue = "auto", arity = "1",
      description = "When to subscribe to the spillway.policy.v1.OverloadPolicy resource on the ADS stream: auto "
          + "(default) once the server advertises the type in its responses' control_plane identifier, as central "
          + "does; true from the start, for a server known to serve it; false never (the policy then comes from "
          + "--overload-policy and the environment).")
  String xdsOverloadPolicy;

  @Option(names = "--report-interval", paramLabel = "S", defaultValue = "5",
      description = "How often, in seconds (a fraction is fine), the edge reports its admission and outbound guard gauges "
          + "to central over the ADS channel, when the control plane advertises the report service (default 5; 0: never).")
  String reportInterval;

  @Option(names = "--redis-uri", paramLabel = "URI",
      description = "The Redis (redis://host:port[/db], rediss:// for TLS) where the policy's fleet-wide rate limits "
          + "(scope: fleet) count, shared by every edge given the same Redis and key prefix. Without it, a policy with "
          + "such a limit is refused.")
  String redisUri;

  @Option(names = "--redis-timeout", paramLabel = "MS", defaultValue = "20",
      description = "How long a request waits for the fleet-wide count, in milliseconds (1 to 10000, default 20); "
          + "after a timeout the limit counts on this edge alone for a second.")
  int redisTimeoutMillis;

  @Option(names = "--redis-key-prefix", paramLabel = "TEXT", defaultValue = "spillway:",
      description = "Put before every Redis key of the fleet-wide limits (default spillway:), so that fleets sharing one "
          + "Redis keep apart.")
  String redisKeyPrefix;

  private io.spillway.policy.DeploymentDefaults deploymentDefaults;

  public static void main(String[] args) {
    System.setProperty("io.netty.allocator.type", "pooled");
    CommandLine cl = new CommandLine(new EdgeMain());
    cl.setCaseInsensitiveEnumValuesAllowed(true);
    int code = cl.execute(args);
    if (code != 0 || !"serve".equals(((EdgeMain) cl.getCommand()).mode)) {
      System.exit(code);
    }
    System.exit(0);
  }

  @Override
  public Integer call() throws Exception {
    PrintWriter err = new PrintWriter(System.err, true);
    if (hotRestartVersion) {
      System.out.println(disableHotRestart ? "disabled" : HotRestartOptions.VERSION);
      mode = "version";
      return 0;
    }
    if (!setLogLevel(logLevel)) {
      err.println("error: --log-level: unknown level '" + logLevel + "'");
      return 2;
    }
    String loggingProblem = configureLogging();
    if (loggingProblem != null) {
      err.println("error: " + loggingProblem);
      return 2;
    }
    if (!mode.equals("serve") && !mode.equals("validate")) {
      err.println("error: --mode: must be serve or validate, not '" + mode + "'");
      return 2;
    }
    if (configPath == null && configYaml == null) {
      err.println("error: a bootstrap is required: -c <file> or --config-yaml <yaml>");
      return 2;
    }
    if (!java.util.Set.of("auto", "epoll", "io_uring", "io-uring", "nio").contains(transport.toLowerCase(java.util.Locale.ROOT))) {
      err.println("error: --transport: must be auto, epoll, io_uring or nio, not '" + transport + "'");
      return 2;
    }
    XdsClientConfig.PolicySubscription policySubscription = switch (xdsOverloadPolicy.toLowerCase(java.util.Locale.ROOT)) {
      case "auto" -> XdsClientConfig.PolicySubscription.ADVERTISED;
      case "true" -> XdsClientConfig.PolicySubscription.ALWAYS;
      case "false" -> XdsClientConfig.PolicySubscription.NEVER;
      default -> null;
    };
    if (policySubscription == null) {
      err.println("error: --xds-overload-policy: must be auto, true or false, not '" + xdsOverloadPolicy + "'");
      return 2;
    }
    String hotRestartProblem = hotRestartOptions().usageProblem(Transport.choose(transport, new StringBuilder()));
    if (hotRestartProblem != null) {
      err.println("error: " + hotRestartProblem);
      return 2;
    }
    if (reportIntervalValue() == null) {
      err.println("error: --report-interval: must be a number of seconds from 0 to 3600, not '" + reportInterval + "'");
      return 2;
    }
    if (concurrency != null && concurrency < 1) {
      err.println("error: --concurrency: must be at least 1");
      return 2;
    }
    String redisProblem = redisProblem();
    if (redisProblem != null) {
      err.println("error: " + redisProblem);
      return 2;
    }
    Bootstrap bootstrap;
    EdgeConfig config;
    try {
      bootstrap = load();
      config = ConfigTranslator.translate(bootstrap);
    } catch (ConfigException e) {
      err.println("error: " + e.getMessage());
      return 1;
    }
    config = withNodeOverrides(config);
    if (config.xds().isPresent() && policySubscription != XdsClientConfig.PolicySubscription.ADVERTISED) {
      XdsClientConfig.PolicySubscription subscription = policySubscription;
      config = config.withXds(config.xds().map(xds -> xds.withPolicySubscription(subscription)));
    }
    io.spillway.policy.EffectivePolicy policy;
    try {
      policy = loadPolicy();
    } catch (IllegalArgumentException | java.io.IOException e) {
      err.println("error: " + e.getMessage());
      return 1;
    }
    if (mode.equals("validate")) {
      System.out.println("configuration '" + (configPath != null ? configPath : "--config-yaml") + "' OK");
      return 0;
    }
    return serve(bootstrap, config, policy);
  }

  /**
   * The overload policy in force at start: the deployment baseline from the environment (an
   * invalid value names its variable), and the policy file over it (its first problem names the field).
   */
  private io.spillway.policy.EffectivePolicy loadPolicy() throws java.io.IOException {
    io.spillway.policy.DeploymentDefaults defaults = io.spillway.policy.DeploymentDefaults.fromEnvironment(System.getenv());
    deploymentDefaults = defaults;
    io.spillway.policy.OverloadPolicy policy = null;
    if (overloadPolicy != null) {
      io.spillway.policy.ParseResult parsed = io.spillway.policy.PolicyJson.parse(
          java.nio.file.Files.readString(overloadPolicy), defaults);
      if (!parsed.valid()) {
        throw new IllegalArgumentException("--overload-policy " + overloadPolicy + ": "
            + parsed.firstProblem().orElseThrow().message());
      }
      policy = parsed.policy();
    }
    return io.spillway.policy.EffectivePolicy.resolve(policy, defaults);
  }

  /** What is wrong with the Redis flags, or null. */
  private String redisProblem() {
    if (redisTimeoutMillis < 1 || redisTimeoutMillis > 10_000) {
      return "--redis-timeout: must be 1 to 10000 milliseconds, not " + redisTimeoutMillis;
    }
    if (redisUri == null) {
      return null;
    }
    try {
      io.spillway.redis.RedisScriptClient.parse(redisUri);
      return null;
    } catch (IllegalArgumentException e) {
      return e.getMessage();
    }
  }

  /** The Redis of fleet-wide limits, when {@code --redis-uri} is given. */
  private java.util.Optional<ServerOptions.FleetRedis> fleetRedis() {
    return java.util.Optional.ofNullable(redisUri)
        .map(uri -> new ServerOptions.FleetRedis(uri, Duration.ofMillis(redisTimeoutMillis), redisKeyPrefix));
  }

  /** {@code --report-interval} as a duration (ms precision), or null when it is not 0 to 3600 seconds. */
  private Duration reportIntervalValue() {
    try {
      java.math.BigDecimal seconds = new java.math.BigDecimal(reportInterval.trim());
      if (seconds.signum() < 0 || seconds.compareTo(java.math.BigDecimal.valueOf(3600)) > 0) {
        return null;
      }
      return Duration.ofMillis(seconds.movePointRight(3).longValue());
    } catch (NumberFormatException e) {
      return null;
    }
  }

  private Bootstrap load() throws ConfigException {
    if (configPath != null && configYaml == null) {
      return BootstrapLoader.load(configPath);
    }
    if (configPath == null) {
      return BootstrapLoader.parse(configYaml, BootstrapLoader.Format.YAML);
    }
    Bootstrap base = BootstrapLoader.load(configPath);
    Bootstrap overlay = BootstrapLoader.parse(configYaml, BootstrapLoader.Format.YAML);
    return base.toBuilder().mergeFrom(overlay).build();
  }

  private EdgeConfig withNodeOverrides(EdgeConfig c) {
    if (serviceNode == null && serviceCluster == null) {
      return c;
    }
    EdgeConfig.NodeInfo n = c.node();
    EdgeConfig.NodeInfo node = new EdgeConfig.NodeInfo(serviceNode != null ? serviceNode : n.id(),
        serviceCluster != null ? serviceCluster : n.cluster(), n.metadata());
    // The identity on the xDS stream follows the overrides too.
    java.util.Optional<io.spillway.edge.config.XdsClientConfig> xds = c.xds().map(x -> x.withNode(
        x.node().toBuilder().setId(node.id()).setCluster(node.cluster()).build()));
    return new EdgeConfig(node, c.admin(), c.listeners(), c.clusters(), c.overload(), xds, c.runtime(),
        c.watchdogs(), c.statsFlush(), c.statsConfig());
  }

  private int serve(Bootstrap bootstrap, EdgeConfig config, io.spillway.policy.EffectivePolicy policy) throws Exception {
    Logger log = LoggerFactory.getLogger(EdgeMain.class);
    ServerOptions options = ServerOptions.defaults()
        .withDrainTime(Duration.ofSeconds(Math.max(0, drainTimeSeconds)));
    if (concurrency != null) {
      options = options.withConcurrency(concurrency);
    }
    options = new ServerOptions(options.concurrency(), options.drainTime(), transport, options.seed(),
        serviceNode, serviceCluster, policy, deploymentDefaults, java.util.Optional.ofNullable(xdsStateDir),
        java.util.Optional.ofNullable(overloadPolicy));
    options = options.withFileFlushInterval(Duration.ofMillis(Math.max(1, fileFlushIntervalMillis)))
        .withHotRestart(hotRestartOptions())
        .withReportInterval(reportIntervalValue())
        .withAccessLogDir(accessLogDir)
        .withFleetRedis(fleetRedis());
    EdgeServer server = new EdgeServer(config, bootstrap, options, new StatsStore(statsOptions(config.statsConfig())),
        Clock.systemUTC());
    try {
      server.start();
    } catch (Exception e) {
      log.error("start-up failed: {}", e.toString());
      server.shutdown(Duration.ZERO);
      return 1;
    }
    Duration drain = options.drainTime();
    Runnable onSignal = () -> server.exitAfterDrain(drain);
    Signals.onTerminate(onSignal);
    if (!Signals.onReopenLogs(server::reopenAccessLogs)) {
      log.warn("SIGUSR1 cannot be handled by this JVM: reopen access logs with POST /reopen_logs");
    }
    server.awaitTermination();
    return 0;
  }

  private HotRestartOptions hotRestartOptions() {
    return new HotRestartOptions(!disableHotRestart, baseId, restartEpoch, Duration.ofSeconds(parentShutdownTimeSeconds));
  }

  /**
   * {@code --log-path}, {@code --log-format}, {@code --log-format-escaped} and
   * {@code --component-log-level} applied to logback; null when done, else the problem. An
   * operator's own {@code -Dlogback.configurationFile} wins over the first three.
   */
  private String configureLogging() {
    if (!(LoggerFactory.getILoggerFactory() instanceof ch.qos.logback.classic.LoggerContext context)) {
      return null;
    }
    try {
      if (componentLogLevel != null) {
        EdgeLogging.componentLevels(componentLogLevel).forEach((name, level) -> context.getLogger(name).setLevel(level));
      }
      if (logPath == null && logFormat == null && !logFormatEscaped) {
        return null;
      }
      if (System.getProperty(EdgeLogConfigurator.CONFIGURATION_FILE_PROPERTY) != null) {
        LoggerFactory.getLogger(EdgeMain.class).warn("--log-path, --log-format and --log-format-escaped are ignored: "
            + "logging is configured by {}", System.getProperty(EdgeLogConfigurator.CONFIGURATION_FILE_PROPERTY));
        return null;
      }
      String pattern = logFormat == null && !logFormatEscaped ? EdgeLogConfigurator.PATTERN
          : EnvoyLogFormat.toLogbackPattern(logFormat == null ? EnvoyLogFormat.EDGE_DEFAULT : logFormat, logFormatEscaped);
      EdgeLogging.install(context, pattern, java.util.Optional.ofNullable(logPath));
      return null;
    } catch (IllegalArgumentException e) {
      return e.getMessage();
    }
  }

  /** The version from the jar's manifest ("dev" when run from classes). */
  static final class Version implements CommandLine.IVersionProvider {
    @Override
    public String[] getVersion() {
      String v = EdgeMain.class.getPackage().getImplementationVersion();
      return new String[] {"spillway edge " + (v == null ? "dev" : v)};
    }
  }

  static boolean setLogLevel(String level) {
    Level l = EdgeLogging.level(level);
    if (l == null) {
      return false;
    }
    ((ch.qos.logback.classic.Logger) LoggerFactory.getLogger(org.slf4j.Logger.ROOT_LOGGER_NAME)).setLevel(l);
    return true;
  }


  /** {@code stats_config} as the stats store applies it. */
  public static io.spillway.edge.stats.StatsOptions statsOptions(io.spillway.edge.config.StatsConfig c) {
    java.util.function.Predicate<String> accepts = switch (c.matcher()) {
      case io.spillway.edge.config.StatsConfig.Matcher.All all -> name -> true;
      case io.spillway.edge.config.StatsConfig.Matcher.RejectAll none -> name -> false;
      case io.spillway.edge.config.StatsConfig.Matcher.Inclusion in ->
          name -> in.patterns().stream().anyMatch(p -> io.spillway.edge.router.RouteMatcher.matches(p, name));
      case io.spillway.edge.config.StatsConfig.Matcher.Exclusion out ->
          name -> out.patterns().stream().noneMatch(p -> io.spillway.edge.router.RouteMatcher.matches(p, name));
    };
    return new io.spillway.edge.stats.StatsOptions(accepts, c.useAllDefaultTags(), c.tags().stream()
        .map(t -> new io.spillway.edge.stats.StatsOptions.CustomTag(t.name(), t.regex(), t.fixedValue())).toList(),
        c.histogramBuckets().stream().map(b -> new io.spillway.edge.stats.StatsOptions.BucketRule(
            name -> io.spillway.edge.router.RouteMatcher.matches(b.match(), name), b.buckets())).toList());
  }
}
