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
import io.spillway.central.auth.LoginThrottle;
import io.spillway.central.auth.PasswordHasher;
import io.spillway.central.auth.Secrets;
import io.spillway.central.console.ConsoleApi;
import io.spillway.central.console.ConsoleFiles;
import io.spillway.central.edges.EdgeGauges;
import io.spillway.central.edges.EdgeStore;
import io.spillway.central.edges.EdgesApi;
import io.spillway.central.policy.AuditStore;
import io.spillway.central.policy.PoliciesApi;
import io.spillway.central.policy.PolicyStore;
import io.spillway.central.ratelimit.RateLimitService;
import io.spillway.central.resources.EffectiveResources;
import io.spillway.central.resources.EndpointsApi;
import io.spillway.central.resources.ResourceStore;
import io.spillway.central.resources.ResourceType;
import io.spillway.central.resources.ResourcesApi;
import io.spillway.central.store.Database;
import io.spillway.central.xds.ChangeBus;
import io.spillway.central.xds.EdgeResourceSource;
import io.spillway.central.xds.EdgeResources;
import io.spillway.central.xds.TypeResources;
import io.spillway.central.xds.XdsServer;
import java.io.IOException;
import java.io.PrintStream;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.security.SecureRandom;
import java.time.Clock;
import java.util.Collection;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
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
  private final ChangeBus bus;
  private final XdsServer xds;
  private final RateLimitService rateLimit;

  private CentralServer(Database database, Javalin http, ChangeBus bus, XdsServer xds, RateLimitService rateLimit) {
    this.database = database;
    this.http = http;
    this.bus = bus;
    this.xds = xds;
    this.rateLimit = rateLimit;
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
    ChangeBus bus = ChangeBus.forDatabase(database, url, config.databaseUser(), config.databasePassword());
    XdsServer xds = null;
    RateLimitService rateLimit = null;
    try {
      Json json = new Json();
      Secrets secrets = new Secrets(random);
      AuthStore authStore = new AuthStore(database, clock);
      AdminBootstrap.run(authStore, secrets, config.adminToken(), console);
      HttpMetrics metrics = new HttpMetrics(database::poolStats);
      Authenticator authenticator = new Authenticator(authStore);
      AuthApi authApi = new AuthApi(authStore, secrets, new PasswordHasher(secrets, PasswordHasher.DEFAULT_ITERATIONS), clock,
          config.sessionTtl(), config.secureCookies(), new LoginThrottle(clock));
      PoliciesApi policiesApi = new PoliciesApi(new PolicyStore(database, json, clock), new AuditStore(database), json, bus);
      ResourceStore resourceStore = new ResourceStore(database, clock);
      EdgeGauges gauges = new EdgeGauges(clock);
      EdgesApi edgesApi = new EdgesApi(new EdgeStore(database, json, clock), secrets, json, bus::publish, resourceStore::problem,
          gauges);
      OpsApi opsApi = new OpsApi(database, metrics);
      EdgeStore xdsEdges = new EdgeStore(database, json, clock);
      if ("h2".equals(database.kind())) {
        xdsEdges.clearConnected(); // the only replica: no stream is open before it starts
      }
      // A committed resource change is pushed to the edges it reaches (a selector: every edge).
      resourceStore.onChange(target -> {
        if (target.isSelector()) {
          bus.publishAll();
        } else {
          bus.publish(target.edgeId());
        }
      });
      if (config.rateLimit().enabled()) {
        rateLimit = RateLimitService.start(config.rateLimit(), new EdgeStore(database, json, clock), XdsServer::callCredential,
            metrics.registry(), clock);
      }
      xds = XdsServer.start(new XdsServer.Settings(config.xdsAddress(), config.xdsPort(), config.xdsResyncInterval()),
          xdsEdges, new PolicyStore(database, json, clock), resourcesOf(resourceStore), bus, metrics.registry(), gauges,
          rateLimit == null ? List.of() : List.of(rateLimit));
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
        new ResourcesApi(resourceStore).register(router);
        new EndpointsApi(resourceStore).register(router);
        new ConsoleApi(ConsoleFiles.shipped()).register(router);
      });
      http.start();
      log.info("central listening on http://{}:{} ({} database, data directory {})", config.httpAddress(), http.port(),
          database.kind(), config.dataDir().toAbsolutePath());
      return new CentralServer(database, http, bus, xds, rateLimit);
    } catch (RuntimeException e) {
      if (xds != null) {
        xds.close();
      }
      if (rateLimit != null) {
        rateLimit.close();
      }
      bus.close();
      database.close();
      throw e;
    }
  }

  /** The bound HTTP port. */
  public int httpPort() {
    return http.port();
  }

  /** The bound xDS port. */
  public int xdsPort() {
    return xds.port();
  }

  @Override
  public void close() {
    try {
      xds.close();
      http.stop();
    } finally {
      if (rateLimit != null) {
        rateLimit.close();
      }
      bus.close();
      database.close();
    }
    log.info("central stopped");
  }

  /** What the xDS server sends an edge: its effective resources (own and by selector), versioned per type. */
  private static EdgeResourceSource resourcesOf(ResourceStore store) {
    return new EdgeResourceSource() {
      @Override
      public EdgeResources resourcesFor(String edgeId) {
        return store.effectiveFor(edgeId).map(CentralServer::served).orElse(EdgeResources.EMPTY);
      }

      @Override
      public Map<String, EdgeResources> resourcesFor(Collection<String> edgeIds) {
        Map<String, EffectiveResources> read = store.effectiveFor(edgeIds);
        Map<String, EdgeResources> all = new HashMap<>();
        for (String edgeId : edgeIds) {
          EffectiveResources e = read.get(edgeId);
          all.put(edgeId, e == null ? EdgeResources.EMPTY : served(e));
        }
        return all;
      }
    };
  }

  private static EdgeResources served(EffectiveResources e) {
    return new EdgeResources(
        TypeResources.of(e.version(ResourceType.CLUSTERS), e.clusters()),
        TypeResources.of(e.version(ResourceType.ENDPOINTS), e.endpoints()),
        TypeResources.of(e.version(ResourceType.LISTENERS), e.listeners()),
        TypeResources.of(e.version(ResourceType.ROUTES), e.routes()),
        TypeResources.of(e.version(ResourceType.RUNTIMES), e.runtimes()));
  }

}
