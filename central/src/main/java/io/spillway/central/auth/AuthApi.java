package io.spillway.central.auth;

import com.fasterxml.jackson.databind.JsonNode;
import io.javalin.http.HandlerType;
import io.spillway.central.api.ApiException;
import io.spillway.central.api.Call;
import io.spillway.central.api.Reply;
import io.spillway.central.api.Router;
import io.spillway.central.store.Rows;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.format.DateTimeParseException;
import java.util.EnumSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.Set;
import java.util.regex.Pattern;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * {@code /configuration/operators}, {@code /configuration/tokens} (both {@code admin}) and the
 * console's {@code /auth/login}, {@code /auth/session} and {@code /auth/logout}. A token or session secret appears in
 * exactly one response, the one that creates it, and in no log line.
 */
public final class AuthApi {

  private static final Logger log = LoggerFactory.getLogger(AuthApi.class);
  private static final Pattern NAME = Pattern.compile("[A-Za-z0-9][A-Za-z0-9._@-]{0,63}");
  private static final int MIN_PASSWORD = 12;
  private static final int MAX_PASSWORD = 1024;

  /** Token prefix, so a leaked token is recognisable. */
  public static final String TOKEN_PREFIX = "spw_";

  private final AuthStore store;
  private final Secrets secrets;
  private final PasswordHasher passwords;
  private final Clock clock;
  private final Duration sessionTtl;
  private final boolean secureCookies;
  private final LoginThrottle throttle;

  /**
   * The API.
   *
   * @param sessionTtl how long a console session lasts
   * @param secureCookies whether the session cookie carries {@code Secure} (on behind HTTPS)
   * @param throttle the back-off for failed logins
   */
  public AuthApi(AuthStore store, Secrets secrets, PasswordHasher passwords, Clock clock, Duration sessionTtl, boolean secureCookies,
      LoginThrottle throttle) {
    this.store = Objects.requireNonNull(store, "store");
    this.secrets = Objects.requireNonNull(secrets, "secrets");
    this.passwords = Objects.requireNonNull(passwords, "passwords");
    this.clock = Objects.requireNonNull(clock, "clock");
    this.sessionTtl = Objects.requireNonNull(sessionTtl, "sessionTtl");
    this.secureCookies = secureCookies;
    this.throttle = Objects.requireNonNull(throttle, "throttle");
  }

  /** Adds the routes. */
  public void register(Router router) {
    router.route(HandlerType.GET, "/configuration/operators", Permission.ADMIN, call -> Reply.ok(Map.of("operators",
        store.operators().stream().map(AuthApi::operatorJson).toList())));
    router.route(HandlerType.POST, "/configuration/operators", Permission.ADMIN, this::createOperator);
    router.route(HandlerType.DELETE, "/configuration/operators/{name}", Permission.ADMIN, this::deleteOperator);
    router.route(HandlerType.GET, "/configuration/tokens", Permission.ADMIN, call -> Reply.ok(Map.of("tokens",
        store.tokens().stream().map(AuthApi::tokenJson).toList())));
    router.route(HandlerType.POST, "/configuration/tokens", Permission.ADMIN, this::createToken);
    router.route(HandlerType.DELETE, "/configuration/tokens/{id}", Permission.ADMIN, this::revokeToken);
    router.publicRoute(HandlerType.POST, "/auth/login", this::login);
    router.publicRoute(HandlerType.GET, "/auth/session", this::session);
    router.publicRoute(HandlerType.POST, "/auth/logout", this::logout);
  }

  private Reply createOperator(Call call) {
    JsonNode body = object(call.jsonBody());
    String name = text(body, "name");
    if (name == null || !NAME.matcher(name).matches()) {
      throw ApiException.of(400, "name must be 1 to 64 letters, digits or . _ @ -, starting with a letter or digit");
    }
    Set<Permission> permissions = permissions(body.get("permissions"));
    String password = text(body, "password");
    String hash = null;
    if (password != null) {
      if (password.length() < MIN_PASSWORD || password.length() > MAX_PASSWORD) {
        throw ApiException.of(400, "password must be " + MIN_PASSWORD + " to " + MAX_PASSWORD + " characters");
      }
      hash = passwords.hash(password);
    }
    if (!store.createOperator(name, permissions, hash)) {
      throw ApiException.of(409, "operator " + name + " already exists");
    }
    log.info("operator {} created by {} with permissions {}", name, call.principal().operator(), Permission.join(permissions));
    return Reply.created(Map.of("name", name, "permissions", names(permissions), "hasPassword", hash != null));
  }

  private Reply deleteOperator(Call call) {
    String name = call.pathParam("name");
    if (name.equals(call.principal().operator())) {
      throw ApiException.of(409, "an operator cannot delete itself");
    }
    if (!store.deleteOperator(name)) {
      throw ApiException.of(404, "no operator " + name);
    }
    log.info("operator {} deleted by {}", name, call.principal().operator());
    return Reply.noContent();
  }

  private Reply createToken(Call call) {
    JsonNode body = object(call.jsonBody());
    String operator = Optional.ofNullable(text(body, "operator")).orElse(call.principal().operator());
    String description = text(body, "description");
    if (description != null && description.length() > 255) {
      throw ApiException.of(400, "description must be at most 255 characters");
    }
    Instant expiresAt = null;
    String expires = text(body, "expiresAt");
    if (expires != null) {
      try {
        expiresAt = Instant.parse(expires);
      } catch (DateTimeParseException e) {
        throw ApiException.of(400, "expiresAt must be an ISO-8601 instant such as 2030-01-01T00:00:00Z");
      }
      if (!expiresAt.isAfter(clock.instant())) {
        throw ApiException.of(400, "expiresAt must be in the future");
      }
    }
    String token = secrets.generate(TOKEN_PREFIX);
    AuthStore.Token stored = store.createToken(operator, Secrets.hash(token), description, expiresAt)
        .orElseThrow(() -> ApiException.of(404, "no operator " + operator));
    log.info("token {} for operator {} created by {}", stored.id(), operator, call.principal().operator());
    Map<String, Object> json = tokenJson(stored);
    json.put("token", token);
    return Reply.created(json);
  }

  private Reply revokeToken(Call call) {
    String id = call.pathParam("id");
    if (!store.revokeToken(id)) {
      throw ApiException.of(404, "no live token " + id);
    }
    log.info("token {} revoked by {}", id, call.principal().operator());
    return Reply.noContent();
  }

  private Reply login(Call call) {
    JsonNode body = object(call.jsonBody());
    String username = text(body, "username");
    String password = text(body, "password");
    if (username == null || password == null || password.length() > MAX_PASSWORD) {
      throw ApiException.of(400, "username and password are required");
    }
    String shown = NAME.matcher(username).matches() ? username : "(invalid name)";
    String address = call.clientAddress();
    Optional<Duration> wait = throttle.refusal(username, address);
    if (wait.isPresent()) {
      long seconds = Math.max(1, (wait.get().toMillis() + 999) / 1000);
      log.info("console login for {} refused for {} s after repeated failures", shown, seconds);
      return new Reply(429, Map.of("error", "too many failed logins; try again in " + seconds + " s"), Map.of())
          .withHeader("Retry-After", Long.toString(seconds));
    }
    Optional<AuthStore.Credentials> credentials = store.credentials(username);
    boolean matches = passwords.verify(password, credentials.map(AuthStore.Credentials::passwordHash).orElse(null));
    if (!matches) {
      throttle.failed(username, address);
      log.info("failed console login for {}", shown);
      throw ApiException.of(401, "wrong username or password");
    }
    throttle.succeeded(username);
    String session = secrets.generate("");
    String csrf = secrets.generate("");
    Instant expiresAt = clock.instant().plus(sessionTtl);
    store.createSession(Secrets.hash(session), username, csrf, expiresAt);
    log.info("operator {} logged in to the console", username);
    Map<String, Object> json = new LinkedHashMap<>();
    json.put("operator", username);
    json.put("permissions", names(credentials.get().permissions()));
    json.put("csrfToken", csrf);
    json.put("expiresAt", expiresAt.toString());
    return Reply.ok(json).withHeader("Set-Cookie", cookie(session, sessionTtl.toSeconds()));
  }

  /**
   * The operator of the request's console session, with the session's CSRF token, so a console
   * page loaded again finds its session. Only the cookie counts (never a bearer token): the
   * answer is readable only by pages of central's origin, which the cookie (SameSite=Strict) and
   * the absence of CORS headers keep to the console.
   */
  private Reply session(Call call) {
    String session = call.cookie(Router.SESSION_COOKIE);
    Principal principal = session == null || session.isBlank() ? null
        : store.principalForSession(Secrets.hash(session)).orElse(null);
    if (principal == null) {
      throw ApiException.of(401, "no console session: log in");
    }
    Map<String, Object> json = new LinkedHashMap<>();
    json.put("operator", principal.operator());
    json.put("permissions", names(principal.permissions()));
    json.put("csrfToken", principal.csrfToken());
    return Reply.ok(json);
  }

  private Reply logout(Call call) {
    String session = call.cookie(Router.SESSION_COOKIE);
    if (session != null && !session.isBlank()) {
      store.deleteSession(Secrets.hash(session));
    }
    return Reply.noContent().withHeader("Set-Cookie", cookie("", 0));
  }

  private String cookie(String value, long maxAgeSeconds) {
    return Router.SESSION_COOKIE + "=" + value + "; Path=/; Max-Age=" + maxAgeSeconds + "; HttpOnly; SameSite=Strict"
        + (secureCookies ? "; Secure" : "");
  }

  private static JsonNode object(JsonNode body) {
    if (!body.isObject()) {
      throw ApiException.of(400, "the request body must be a JSON object");
    }
    return body;
  }

  private static String text(JsonNode body, String field) {
    JsonNode node = body.get(field);
    if (node == null || node.isNull()) {
      return null;
    }
    if (!node.isTextual()) {
      throw ApiException.of(400, field + " must be a string");
    }
    return node.asText();
  }

  private static Set<Permission> permissions(JsonNode node) {
    Set<Permission> permissions = EnumSet.noneOf(Permission.class);
    if (node == null || node.isNull()) {
      return permissions;
    }
    if (!node.isArray()) {
      throw ApiException.of(400, "permissions must be an array of edges:read, edges:manage, admin");
    }
    for (JsonNode item : node) {
      permissions.add(Permission.fromJsonName(item.asText(""))
          .orElseThrow(() -> ApiException.of(400, "unknown permission " + item + ": use edges:read, edges:manage or admin")));
    }
    return permissions;
  }

  private static List<String> names(Set<Permission> permissions) {
    return permissions.stream().sorted().map(Permission::jsonName).toList();
  }

  private static Map<String, Object> operatorJson(AuthStore.Operator operator) {
    Map<String, Object> json = new LinkedHashMap<>();
    json.put("name", operator.name());
    json.put("permissions", names(operator.permissions()));
    json.put("hasPassword", operator.hasPassword());
    json.put("createdAt", Rows.text(operator.createdAt()));
    return json;
  }

  private static Map<String, Object> tokenJson(AuthStore.Token token) {
    Map<String, Object> json = new LinkedHashMap<>();
    json.put("id", token.id());
    json.put("operator", token.operator());
    json.put("description", token.description());
    json.put("createdAt", Rows.text(token.createdAt()));
    json.put("expiresAt", Rows.text(token.expiresAt()));
    json.put("revokedAt", Rows.text(token.revokedAt()));
    return json;
  }
}
