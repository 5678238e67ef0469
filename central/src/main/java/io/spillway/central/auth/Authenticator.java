package io.spillway.central.auth;

import java.util.Objects;
import java.util.Optional;

/**
 * Turns a request's credentials into a {@link Principal}: an {@code Authorization: Bearer} API
 * token first, else the console session cookie. Only hashes are looked up; the secrets themselves
 * are never stored or logged.
 */
public final class Authenticator {

  private final AuthStore store;

  /** Looks credentials up in the store. */
  public Authenticator(AuthStore store) {
    this.store = Objects.requireNonNull(store, "store");
  }

  /**
   * The operator behind the credentials.
   *
   * @param authorization the {@code Authorization} header, or null
   * @param sessionCookie the session cookie's value, or null
   * @return the principal, or null when there are no valid credentials (a present but invalid
   *     bearer token does not fall back to the cookie)
   */
  public Principal authenticate(String authorization, String sessionCookie) {
    if (authorization != null) {
      return bearerToken(authorization).flatMap(token -> store.principalForToken(Secrets.hash(token))).orElse(null);
    }
    if (sessionCookie != null && !sessionCookie.isBlank()) {
      return store.principalForSession(Secrets.hash(sessionCookie)).orElse(null);
    }
    return null;
  }

  /** The token of a {@code Bearer} authorization header (scheme case-insensitive). */
  static Optional<String> bearerToken(String authorization) {
    Objects.requireNonNull(authorization, "authorization");
    String trimmed = authorization.trim();
    if (trimmed.length() < 7 || !trimmed.regionMatches(true, 0, "Bearer ", 0, 7)) {
      return Optional.empty();
    }
    String token = trimmed.substring(7).trim();
    return token.isEmpty() || token.length() > 256 ? Optional.empty() : Optional.of(token);
  }
}
