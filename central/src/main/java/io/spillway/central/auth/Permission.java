package io.spillway.central.auth;

import java.util.EnumSet;
import java.util.Optional;
import java.util.Set;

/**
 * What an operator may do. {@code edges:manage} includes {@code edges:read}; {@code admin} (manage
 * operators and tokens) includes both.
 */
public enum Permission {
  /** See edges, policies and the audit log. */
  EDGES_READ("edges:read"),
  /** Register edges and change their labels and policies. */
  EDGES_MANAGE("edges:manage"),
  /** Manage operators and API tokens. */
  ADMIN("admin");

  private final String jsonName;

  Permission(String jsonName) {
    this.jsonName = jsonName;
  }

  /** The name in the API, e.g. {@code edges:read}. */
  public String jsonName() {
    return jsonName;
  }

  /** The permission with this API name. */
  public static Optional<Permission> fromJsonName(String name) {
    for (Permission permission : values()) {
      if (permission.jsonName.equals(name)) {
        return Optional.of(permission);
      }
    }
    return Optional.empty();
  }

  /** Whether holding {@code granted} allows what {@code this} guards. */
  public boolean grantedBy(Set<Permission> granted) {
    return switch (this) {
      case EDGES_READ -> granted.contains(EDGES_READ) || granted.contains(EDGES_MANAGE) || granted.contains(ADMIN);
      case EDGES_MANAGE -> granted.contains(EDGES_MANAGE) || granted.contains(ADMIN);
      case ADMIN -> granted.contains(ADMIN);
    };
  }

  /** Every permission. */
  public static Set<Permission> all() {
    return EnumSet.allOf(Permission.class);
  }

  /** The stored form: API names joined with commas. */
  static String join(Set<Permission> permissions) {
    return String.join(",", permissions.stream().sorted().map(Permission::jsonName).toList());
  }

  /** Reads the stored form; unknown names are skipped. */
  static Set<Permission> split(String stored) {
    Set<Permission> permissions = EnumSet.noneOf(Permission.class);
    for (String name : stored.split(",")) {
      fromJsonName(name.trim()).ifPresent(permissions::add);
    }
    return permissions;
  }
}
