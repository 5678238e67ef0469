package io.spillway.central;

import io.spillway.central.ratelimit.RateLimitSettings;
import java.nio.file.Path;
import java.security.SecureRandom;
import java.time.Clock;
import java.time.Duration;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.Callable;
import java.util.concurrent.CountDownLatch;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

/** {@code bin/spillway central}: runs central until SIGTERM or SIGINT, then stops gracefully. */
@Command(name = "central", mixinStandardHelpOptions = true, sortOptions = false,
    description = "Spillway central: the control plane's REST API, storage and xDS server.")
public final class CentralMain implements Callable<Integer> {

  private static final Logger log = LoggerFactory.getLogger(CentralMain.class);

  @Option(names = "--data-dir", defaultValue = "${env:SPILLWAY_DATA_DIR:-./spillway-data}",
      description = "Data directory; the embedded database lives here (env SPILLWAY_DATA_DIR; default ${DEFAULT-VALUE}).")
  Path dataDir;

  @Option(names = "--database-url", defaultValue = "${env:SPILLWAY_DATABASE_URL}",
      description = "JDBC URL of PostgreSQL (jdbc:postgresql://host:5432/db) or H2; default the embedded H2 file in the data directory (env SPILLWAY_DATABASE_URL).")
  String databaseUrl;

  @Option(names = "--database-user", defaultValue = "${env:SPILLWAY_DATABASE_USER}",
      description = "Database user (env SPILLWAY_DATABASE_USER).")
  String databaseUser;

  @Option(names = "--database-password", defaultValue = "${env:SPILLWAY_DATABASE_PASSWORD}",
      description = "Database password (env SPILLWAY_DATABASE_PASSWORD; prefer the variable, flags show in ps).")
  String databasePassword;

  @Option(names = "--http-address", defaultValue = "${env:SPILLWAY_HTTP_ADDRESS:-127.0.0.1}",
      description = "Address of the HTTP API (env SPILLWAY_HTTP_ADDRESS; default ${DEFAULT-VALUE}).")
  String httpAddress;

  @Option(names = "--http-port", defaultValue = "${env:SPILLWAY_HTTP_PORT:-8080}",
      description = "Port of the HTTP API, 0 for any (env SPILLWAY_HTTP_PORT; default ${DEFAULT-VALUE}).")
  int httpPort;

  @Option(names = "--xds-address", defaultValue = "${env:SPILLWAY_XDS_ADDRESS:-127.0.0.1}",
      description = "Address of the xDS server for edges (env SPILLWAY_XDS_ADDRESS; default ${DEFAULT-VALUE}).")
  String xdsAddress;

  @Option(names = "--xds-port", defaultValue = "${env:SPILLWAY_XDS_PORT:-18000}",
      description = "Port of the xDS server for edges, 0 for any (env SPILLWAY_XDS_PORT; default ${DEFAULT-VALUE}).")
  int xdsPort;

  @Option(names = "--xds-resync-interval", defaultValue = "${env:SPILLWAY_XDS_RESYNC_INTERVAL:-PT5M}",
      description = "How often every connected edge is re-read and sent what differs, the safety net behind push on "
          + "change; ISO-8601 (PT5M, PT30S) (env SPILLWAY_XDS_RESYNC_INTERVAL; default ${DEFAULT-VALUE}).")
  Duration xdsResyncInterval;

  @Option(names = "--ratelimit-config", split = ",", paramLabel = "<file>",
      description = "A rate limit service limits file (Lyft's ratelimit format, one domain per file); repeat or separate "
          + "with commas for several domains. With it central serves envoy.service.ratelimit.v3.RateLimitService on the "
          + "xDS port; without it, not (env SPILLWAY_RATELIMIT_CONFIG).")
  List<Path> rateLimitConfig;

  @Option(names = "--redis-uri", defaultValue = "${env:SPILLWAY_REDIS_URI:-redis://127.0.0.1:6379}",
      description = "Redis of the rate limit service's counters (env SPILLWAY_REDIS_URI; default ${DEFAULT-VALUE}).")
  String redisUri;

  @Option(names = "--redis-key-prefix", defaultValue = "${env:SPILLWAY_REDIS_KEY_PREFIX:-}",
      description = "Put before every counter's key in Redis, for deployments sharing one Redis (env SPILLWAY_REDIS_KEY_PREFIX).")
  String redisKeyPrefix;

  @Option(names = "--redis-timeout", defaultValue = "${env:SPILLWAY_REDIS_TIMEOUT:-PT0.05S}",
      description = "Longest a rate limit check waits for Redis before it answers UNAVAILABLE; ISO-8601 "
          + "(env SPILLWAY_REDIS_TIMEOUT; default ${DEFAULT-VALUE}).")
  Duration redisTimeout;

  @Option(names = "--secure-cookies", defaultValue = "${env:SPILLWAY_SECURE_COOKIES:-false}",
      description = "Mark the console session cookie Secure (set when central is behind HTTPS; env SPILLWAY_SECURE_COOKIES).")
  boolean secureCookies;

  @Option(names = "--max-body-bytes", defaultValue = "1048576",
      description = "Largest request body accepted (default ${DEFAULT-VALUE}).")
  int maxBodyBytes;

  private final CountDownLatch stop = new CountDownLatch(1);

  private CentralMain() {}

  /** Entry point. */
  public static void main(String[] args) {
    int code = new CommandLine(new CentralMain()).execute(args);
    if (code != 0) {
      System.exit(code);
    }
  }

  @Override
  public Integer call() throws InterruptedException {
    String adminToken = System.getenv("SPILLWAY_ADMIN_TOKEN");
    CentralConfig config = new CentralConfig(dataDir, blankToNull(databaseUrl), blankToNull(databaseUser),
        blankToNull(databasePassword), httpAddress, httpPort, xdsPort, blankToNull(adminToken), secureCookies, maxBodyBytes,
        Duration.ofHours(12), xdsAddress, xdsResyncInterval, CentralConfig.NO_RATE_LIMIT_SERVICE);
    CentralServer server;
    try {
      config = config.withRateLimit(new RateLimitSettings(rateLimitFiles(), redisUri, redisKeyPrefix, redisTimeout));
      server = CentralServer.start(config, Clock.systemUTC(), new SecureRandom(), System.out);
    } catch (RuntimeException e) {
      log.error("central could not start: {}", e.getMessage());
      log.debug("start failure", e);
      return 1;
    }
    Thread hook = new Thread(() -> {
      server.close();
      stop.countDown();
    }, "central-shutdown");
    Runtime.getRuntime().addShutdownHook(hook);
    stop.await();
    return 0;
  }

  /** The flag's files, or those of SPILLWAY_RATELIMIT_CONFIG (comma-separated) when the flag is not given. */
  private List<Path> rateLimitFiles() {
    if (rateLimitConfig != null && !rateLimitConfig.isEmpty()) {
      return rateLimitConfig;
    }
    String env = blankToNull(System.getenv("SPILLWAY_RATELIMIT_CONFIG"));
    return env == null ? List.of() : Arrays.stream(env.split(",")).map(String::trim).filter(f -> !f.isEmpty())
        .map(Path::of).toList();
  }

  private static String blankToNull(String value) {
    return value == null || value.isBlank() ? null : value;
  }
}
