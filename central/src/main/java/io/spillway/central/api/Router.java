package io.spillway.central.api;

import io.javalin.config.RoutesConfig;
import io.javalin.http.Context;
import io.javalin.http.HandlerType;
import io.spillway.central.auth.Authenticator;
import io.spillway.central.auth.Permission;
import io.spillway.central.auth.Principal;
import io.spillway.central.auth.Secrets;
import io.spillway.central.store.StoreException;
import java.nio.charset.StandardCharsets;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Registers API routes on Javalin, each wrapped in the same steps, in this order: authenticate
 * (bearer token or session cookie; none or invalid → 401 with {@code WWW-Authenticate: Bearer}),
 * CSRF check for mutating requests that came with a session cookie (→ 403), permission check
 * (→ 403), the endpoint, then error mapping and one request metric labelled with the route
 * template (never the raw path, so label cardinality stays bounded).
 */
public final class Router {

  private static final Logger log = LoggerFactory.getLogger(Router.class);
  private static final Set<HandlerType> MUTATING = Set.of(HandlerType.POST, HandlerType.PUT, HandlerType.PATCH, HandlerType.DELETE);

  /** The name of the console session cookie. */
  public static final String SESSION_COOKIE = "spillway_session";
  /** The header a session-authenticated mutating request must carry. */
  public static final String CSRF_HEADER = "X-CSRF-Token";

  private final RoutesConfig routes;
  private final Authenticator authenticator;
  private final Json json;
  private final HttpMetrics metrics;
  private final int maxBodyBytes;

  /**
   * A router adding to Javalin's route configuration.
   *
   * @param maxBodyBytes the largest request body accepted (413 above)
   */
  public Router(RoutesConfig routes, Authenticator authenticator, Json json, HttpMetrics metrics, int maxBodyBytes) {
    this.routes = Objects.requireNonNull(routes, "routes");
    this.authenticator = Objects.requireNonNull(authenticator, "authenticator");
    this.json = Objects.requireNonNull(json, "json");
    this.metrics = Objects.requireNonNull(metrics, "metrics");
    this.maxBodyBytes = maxBodyBytes;
  }

  /** A route anyone may call (health, login, the OpenAPI file). */
  public void publicRoute(HandlerType method, String path, Endpoint endpoint) {
    add(method, path, null, endpoint);
  }

  /** A route that needs an operator holding {@code needed}. */
  public void route(HandlerType method, String path, Permission needed, Endpoint endpoint) {
    add(method, path, Objects.requireNonNull(needed, "needed"), endpoint);
  }

  private void add(HandlerType method, String path, Permission needed, Endpoint endpoint) {
    io.javalin.http.Handler handler = ctx -> handle(ctx, method, path, needed, endpoint);
    if (method.equals(HandlerType.GET)) {
      routes.get(path, handler);
      // RFC 9110 §9.3.2: what answers GET answers HEAD, with the same headers and no body (Jetty drops it).
      routes.head(path, handler);
    } else if (method.equals(HandlerType.POST)) {
      routes.post(path, handler);
    } else if (method.equals(HandlerType.PATCH)) {
      routes.patch(path, handler);
    } else if (method.equals(HandlerType.PUT)) {
      routes.put(path, handler);
    } else if (method.equals(HandlerType.DELETE)) {
      routes.delete(path, handler);
    } else {
      throw new IllegalArgumentException("unsupported method " + method);
    }
  }

  private void handle(Context ctx, HandlerType method, String route, Permission needed, Endpoint endpoint) {
    long started = System.nanoTime();
    Reply reply;
    try {
      Principal principal = needed == null ? null : authorize(ctx, method, needed);
      reply = endpoint.handle(new Call(ctx, principal, json, maxBodyBytes));
    } catch (ApiException e) {
      reply = e.emptyBody() ? new Reply(e.status(), null, Map.of()) : new Reply(e.status(), Map.of("error", e.getMessage()), Map.of());
      if (e.status() == 401) {
        reply = reply.withHeader("WWW-Authenticate", "Bearer realm=\"spillway\"");
      }
    } catch (StoreException e) {
      log.error("database error on {} {}: {}", method, route, e.getMessage());
      reply = new Reply(503, Map.of("error", "the database is not available"), Map.of());
    } catch (Exception e) {
      log.error("unexpected error on {} {}", method, route, e);
      reply = new Reply(500, Map.of("error", "internal error"), Map.of());
    }
    write(ctx, reply);
    metrics.record(method.name(), route, reply.status(), (System.nanoTime() - started) / 1e9);
  }

  private Principal authorize(Context ctx, HandlerType method, Permission needed) {
    Principal principal = authenticator.authenticate(ctx.header("Authorization"), ctx.cookie(SESSION_COOKIE));
    if (principal == null) {
      throw ApiException.of(401, "authentication required: send Authorization: Bearer <token> or log in");
    }
    if (principal.viaSession() && MUTATING.contains(method)
        && !Secrets.constantTimeEquals(principal.csrfToken(), ctx.header(CSRF_HEADER))) {
      throw ApiException.of(403, "missing or wrong " + CSRF_HEADER + " header");
    }
    if (!principal.may(needed)) {
      throw ApiException.of(403, "operator " + principal.operator() + " lacks the " + needed.jsonName() + " permission");
    }
    return principal;
  }

  private void write(Context ctx, Reply reply) {
    ctx.status(reply.status());
    reply.headers().forEach(ctx::header);
    ctx.header("Cache-Control", "no-store");
    ctx.header("X-Content-Type-Options", "nosniff");
    if (reply.body() == null) {
      ctx.result(new byte[0]);
      ctx.res().setContentType(null); // no body, no media type (Javalin's default is text/plain)
    } else if (reply.body() instanceof RawBody raw) {
      ctx.contentType(raw.contentType());
      ctx.result(raw.bytes());
    } else {
      ctx.contentType("application/json");
      ctx.result(json.write(reply.body()).getBytes(StandardCharsets.UTF_8));
    }
  }

  /**
   * A body that is not JSON (metrics, the OpenAPI file, health text).
   *
   * @param contentType its media type
   * @param bytes the content
   */
  public record RawBody(String contentType, byte[] bytes) {

    /** Plain UTF-8 text. */
    public static RawBody text(String text) {
      return new RawBody("text/plain; charset=utf-8", text.getBytes(StandardCharsets.UTF_8));
    }
  }
}
