package io.spillway.central.api;

import io.javalin.http.HandlerType;
import io.spillway.central.store.Database;
import io.spillway.policy.AccessLogSchema;
import io.spillway.policy.PolicySchema;
import io.spillway.policy.RateLimitSchema;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.util.Map;
import java.util.Objects;

/**
 * The public operational routes: {@code /healthz} (the process answers), {@code /readyz} (the
 * database answers and the migrations ran), {@code /metrics} (Prometheus text) and
 * {@code /openapi.yaml} (the API description), and {@code /schemas/overload-policy.json},
 * {@code /schemas/rate-limits-policy.json} and {@code /schemas/access-log-policy.json} (the fields
 * of the overload, rateLimits and accessLog sections as the console's editors are built from them).
 * None of them shows a secret.
 */
public final class OpsApi {

  private final Database database;
  private final HttpMetrics metrics;
  private final byte[] openApi;
  /** The shared policy module's descriptions, by the path central serves each at. */
  private static final Map<String, String> SCHEMAS = Map.of(
      "/schemas/overload-policy.json", PolicySchema.describeAsString(),
      "/schemas/rate-limits-policy.json", RateLimitSchema.describeAsString(),
      "/schemas/access-log-policy.json", AccessLogSchema.describeAsString());

  /** The routes over the database and metrics. */
  public OpsApi(Database database, HttpMetrics metrics) {
    this.database = Objects.requireNonNull(database, "database");
    this.metrics = Objects.requireNonNull(metrics, "metrics");
    this.openApi = openApiFile();
  }

  /** The OpenAPI file shipped in the jar. */
  public static byte[] openApiFile() {
    try (InputStream in = OpsApi.class.getResourceAsStream("/openapi.yaml")) {
      if (in == null) {
        throw new IllegalStateException("openapi.yaml is missing from the classpath");
      }
      return in.readAllBytes();
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  /** Adds the routes. */
  public void register(Router router) {
    router.publicRoute(HandlerType.GET, "/healthz", call -> new Reply(200, Router.RawBody.text("ok\n"), Map.of()));
    router.publicRoute(HandlerType.GET, "/readyz", call -> database.ready()
        ? new Reply(200, Router.RawBody.text("ready\n"), Map.of())
        : new Reply(503, Router.RawBody.text("not ready: the database does not answer or is not migrated\n"), Map.of()));
    router.publicRoute(HandlerType.GET, "/metrics", call ->
        new Reply(200, new Router.RawBody(metrics.contentType(), metrics.scrape()), Map.of()));
    router.publicRoute(HandlerType.GET, "/openapi.yaml", call ->
        new Reply(200, new Router.RawBody("application/yaml", openApi), Map.of()));
    // The shared policy module's description of every field (range, default, environment
    // variable, hint, central's exact messages) and rule: what the console validates with.
    SCHEMAS.forEach((path, text) -> {
      byte[] body = text.getBytes(StandardCharsets.UTF_8);
      router.publicRoute(HandlerType.GET, path, call -> new Reply(200, new Router.RawBody("application/json", body), Map.of()));
    });
  }
}
