package io.spillway.central;

import io.spillway.central.ratelimit.RateLimitSettings;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Objects;

/**
 * How one central process runs.
 *
 * @param dataDir the data directory (the embedded database lives here)
 * @param databaseUrl a {@code jdbc:postgresql:} or {@code jdbc:h2:} URL, or null for the embedded
 *     database in {@code dataDir}
 * @param databaseUser the database user, or null
 * @param databasePassword the database password, or null; never logged
 * @param httpAddress the address the HTTP API binds
 * @param httpPort the HTTP port, 0 for any free port
 * @param xdsPort the port of the xDS server, 0 for any free port
 * @param adminToken the first administrator's token ({@code SPILLWAY_ADMIN_TOKEN}), or null to
 *     generate and print one on first start
 * @param secureCookies whether the session cookie carries {@code Secure}
 * @param maxBodyBytes the largest request body accepted
 * @param sessionTtl how long a console session lasts
 * @param xdsAddress the address the xDS server binds
 * @param xdsResyncInterval how often the xDS server re-sends every connected edge what differs
 *     (the safety net behind push on change)
 * @param rateLimit the rate limit service on the xDS port (served when it has limits files)
 */
public record CentralConfig(Path dataDir, String databaseUrl, String databaseUser, String databasePassword,
    String httpAddress, int httpPort, int xdsPort, String adminToken, boolean secureCookies, int maxBodyBytes,
    Duration sessionTtl, String xdsAddress, Duration xdsResyncInterval, RateLimitSettings rateLimit) {

  /** No rate limit service. */
  public static final RateLimitSettings NO_RATE_LIMIT_SERVICE = new RateLimitSettings(List.of(),
      RateLimitSettings.DEFAULT_REDIS_URI, "", RateLimitSettings.DEFAULT_REDIS_TIMEOUT);

  /** The default body limit: 1 MiB. */
  public static final int DEFAULT_MAX_BODY_BYTES = 1 << 20;

  /** The default xDS address: loopback. */
  public static final String DEFAULT_XDS_ADDRESS = "127.0.0.1";
  /** The default re-sync interval: 5 minutes. */
  public static final Duration DEFAULT_XDS_RESYNC_INTERVAL = Duration.ofMinutes(5);

  /** The configuration with the default xDS address and re-sync interval. */
  public CentralConfig(Path dataDir, String databaseUrl, String databaseUser, String databasePassword,
      String httpAddress, int httpPort, int xdsPort, String adminToken, boolean secureCookies, int maxBodyBytes,
      Duration sessionTtl) {
    this(dataDir, databaseUrl, databaseUser, databasePassword, httpAddress, httpPort, xdsPort, adminToken, secureCookies,
        maxBodyBytes, sessionTtl, DEFAULT_XDS_ADDRESS, DEFAULT_XDS_RESYNC_INTERVAL, NO_RATE_LIMIT_SERVICE);
  }

  /** Checks the values. */
  public CentralConfig {
    Objects.requireNonNull(dataDir, "dataDir");
    Objects.requireNonNull(xdsAddress, "xdsAddress");
    Objects.requireNonNull(rateLimit, "rateLimit");
    if (xdsResyncInterval == null || xdsResyncInterval.isNegative() || xdsResyncInterval.isZero()) {
      throw new IllegalArgumentException("xdsResyncInterval must be positive");
    }
    Objects.requireNonNull(httpAddress, "httpAddress");
    Objects.requireNonNull(sessionTtl, "sessionTtl");
    if (httpPort < 0 || httpPort > 65535 || xdsPort < 0 || xdsPort > 65535) {
      throw new IllegalArgumentException("ports must be from 0 to 65535");
    }
    if (maxBodyBytes < 1024) {
      throw new IllegalArgumentException("maxBodyBytes must be at least 1024");
    }
  }

  /**
   * The configuration with defaults for everything but the data directory and database; HTTP and
   * xDS on any free port (tests, embedding).
   */
  public static CentralConfig defaults(Path dataDir, String databaseUrl, String databaseUser, String adminToken) {
    return new CentralConfig(dataDir, databaseUrl, databaseUser, null, "127.0.0.1", 0, 0, adminToken, false,
        DEFAULT_MAX_BODY_BYTES, Duration.ofHours(12));
  }

  /** This configuration on another HTTP port. */
  public CentralConfig withHttpPort(int port) {
    return new CentralConfig(dataDir, databaseUrl, databaseUser, databasePassword, httpAddress, port, xdsPort, adminToken,
        secureCookies, maxBodyBytes, sessionTtl, xdsAddress, xdsResyncInterval, rateLimit);
  }

  /** This configuration with another xDS port and re-sync interval. */
  public CentralConfig withXds(int port, Duration resyncInterval) {
    return new CentralConfig(dataDir, databaseUrl, databaseUser, databasePassword, httpAddress, httpPort, port, adminToken,
        secureCookies, maxBodyBytes, sessionTtl, xdsAddress, resyncInterval, rateLimit);
  }

  /** This configuration with the rate limit service set up so. */
  public CentralConfig withRateLimit(RateLimitSettings settings) {
    return new CentralConfig(dataDir, databaseUrl, databaseUser, databasePassword, httpAddress, httpPort, xdsPort, adminToken,
        secureCookies, maxBodyBytes, sessionTtl, xdsAddress, xdsResyncInterval, settings);
  }

  /** Hides the password (and the admin token) from {@code toString}. */
  @Override
  public String toString() {
    return "CentralConfig[dataDir=" + dataDir + ", database=" + (databaseUrl == null ? "embedded" : "external")
        + ", httpAddress=" + httpAddress + ", httpPort=" + httpPort + ", xdsAddress=" + xdsAddress + ", xdsPort=" + xdsPort
        + ", rateLimitConfig=" + rateLimit.configFiles() + "]";
  }
}
