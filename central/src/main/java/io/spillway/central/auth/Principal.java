package io.spillway.central.auth;

import java.util.Objects;
import java.util.Set;

/**
 * Who made a request and how.
 *
 * @param operator the operator's name
 * @param permissions what the operator holds
 * @param csrfToken for a console session, the token mutating requests must echo in
 *     {@code X-CSRF-Token}; null for an API token
 */
public record Principal(String operator, Set<Permission> permissions, String csrfToken) {

  /** Copies the permissions. */
  public Principal {
    Objects.requireNonNull(operator, "operator");
    permissions = Set.copyOf(permissions);
  }

  /** Whether the operator may do what {@code needed} guards. */
  public boolean may(Permission needed) {
    return needed.grantedBy(permissions);
  }

  /** Whether the request came with a session cookie rather than a bearer token. */
  public boolean viaSession() {
    return csrfToken != null;
  }
}
