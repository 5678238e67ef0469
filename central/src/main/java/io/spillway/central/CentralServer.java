package io.spillway.central;

import io.javalin.Javalin;
import io.spillway.central.api.HttpMetrics;
import io.spillway.central.api.Json;
import io.spillway.central.api.OpsApi;
import io.spillway.central.api.Router;
import io.spillway.central.auth.AdminBootstrap;
import io.spillway.central.auth.AuthApi;
import io.spillway.central.auth.AuthStore;
import io.spillway.central.auth.Authenticator;
import io.spillway.central.auth.PasswordHasher;
import io.spillway.central.auth.Secrets;
import io.spillway.central.edges.EdgeStore;
import io.spillway.central.edges.EdgesApi;
import io.spillway.central.policy.AuditStore;
import io.spillway.central.policy.PoliciesApi;
import io.spillway.central.policy.PolicyStore;
import io.spillway.central.store.Database;
import java.io.IOException;
import java.io.PrintStream;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.security.SecureRandom;
import java.time.Clock;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * One running central: database (migrated), first-start administrator, and the HTTP API. Start
 * with {@link #start}, stop with {@link #close} (stops accepting, finishes requests in flight,
 * then closes the pool).
 */
public final class CentralServer implements AutoCloseable {

  private static final Logger log = LoggerFactory.getLogger(CentralServer.class);

  private final Database database;
  private final Javalin http;

  private CentralServer(Database database, Javalin http) {
    this.database = database;
    this.http = http;
  }

  /**
   * Starts central.
   *
   * @param clock the time source of every timestamp
   * @param random the source of every token, credential, session id and salt
   * @param console where a generated first-start token is printed
   */
  public static CentralServer start(CentralConfig config, Clock clock, SecureRandom random, PrintStream console) {
    String url = config.databaseUrl();
    if (url == null) {
      try {
        Files.createDirectories(config.dataDir());
      } catch (IOException e) {
        throw new UncheckedIOException("cannot create the data directory " + config.dataDir(), e);
      }
      url = Database.embeddedUrl(config.dataDir());
    }
    Database database = Database.open(url, config.databaseUser(), config.databasePassword());
    try {
      Json json = new Json();
      Secrets secrets = new Secrets(random);
      AuthStore authStore = new AuthStore(database, clock);
      AdminBootstrap.run(authStore, secrets, config.adminToken(), console);
      HttpMetrics metrics = new HttpMetrics(database::poolStats);
      Authenticator authenticator = new Authenticator(authStore);
      AuthApi authApi = new AuthApi(authStore, secrets, new PasswordHasher(secrets, PasswordHasher.DEFAULT_ITERATIONS), clock,
          config.sessionTtl(), config.secureCookies());
      PoliciesApi policiesApi = new PoliciesApi(new PolicyStore(database, json, clock), new AuditStore(database), json);
      EdgesApi edgesApi = new EdgesApi(new EdgeStore(database, json, clock), secrets, json);
      OpsApi opsApi = new OpsApi(database, metrics);
      Javalin http = Javalin.create(cfg -> {
        cfg.startup.showJavalinBanner = false;
        cfg.startup.showOldJavalinVersionWarning = false;
        cfg.jetty.host = config.httpAddress();
        cfg.jetty.port = config.httpPort();
        cfg.http.maxRequestSize = config.maxBodyBytes();
        cfg.jetty.modifyServer(server -> server.setStopTimeout(10_000));
        Router router = new Router(cfg.routes, authenticator, json, metrics, config.maxBodyBytes());
        opsApi.register(router);
        authApi.register(router);
        policiesApi.register(router); // before /configuration/edges/{id}
        edgesApi.register(router);
      });
      http.start();
      log.info("central listening on http://{}:{} ({} database, data directory {})", config.httpAddress(), http.port(),
          database.kind(), config.dataDir().toAbsolutePath());
      return new CentralServer(database, http);
    } catch (RuntimeException e) {
      database.close();
      throw e;
    }
  }

  /** The bound HTTP port. */
  public int httpPort() {
    return http.port();
  }

  @Override
  public void close() {
    try {
      http.stop();
    } finally {
      database.close();
    }
    log.info("central stopped");
  }
}
