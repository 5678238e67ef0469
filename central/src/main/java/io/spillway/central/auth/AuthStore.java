package io.spillway.central.auth;

import io.spillway.central.store.Database;
import io.spillway.central.store.Rows;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Clock;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.Optional;
import java.util.Set;
import java.util.UUID;

/** Operators, API tokens and console sessions in the database. Secrets arrive hashed or not at all. */
public final class AuthStore {

  /**
   * An operator as listed (never with the password hash).
   *
   * @param name the login name
   * @param permissions what it holds
   * @param hasPassword whether it can log in to the console
   * @param createdAt when it was created
   */
  public record Operator(String name, Set<Permission> permissions, boolean hasPassword, Instant createdAt) {}

  /**
   * An API token as listed (never with its secret or hash).
   *
   * @param id the token's id, used to revoke it
   * @param operator whose token it is
   * @param description what it is for
   * @param createdAt when it was created
   * @param expiresAt when it stops working, or null
   * @param revokedAt when it was revoked, or null
   */
  public record Token(String id, String operator, String description, Instant createdAt, Instant expiresAt, Instant revokedAt) {}

  private final Database database;
  private final Clock clock;

  /** A store on the database. */
  public AuthStore(Database database, Clock clock) {
    this.database = Objects.requireNonNull(database, "database");
    this.clock = Objects.requireNonNull(clock, "clock");
  }

  /** Whether any operator exists. */
  public boolean anyOperator() {
    return database.inTransaction(c -> {
      try (PreparedStatement s = c.prepareStatement("SELECT COUNT(*) FROM operators"); ResultSet r = s.executeQuery()) {
        r.next();
        return r.getLong(1) > 0;
      }
    });
  }

  /**
   * Creates an operator.
   *
   * @param passwordHash the {@link PasswordHasher} form, or null for token-only operators
   * @return false when the name is taken
   */
  public boolean createOperator(String name, Set<Permission> permissions, String passwordHash) {
    return database.inTransaction(c -> insertOperator(c, name, permissions, passwordHash));
  }

  /**
   * Creates the first administrator and its token in one transaction, unless an operator exists.
   *
   * @return false when an operator already existed (another replica got there first)
   */
  public boolean createFirstAdmin(String name, String tokenHash) {
    return database.inTransaction(c -> {
      try (PreparedStatement s = c.prepareStatement("SELECT COUNT(*) FROM operators"); ResultSet r = s.executeQuery()) {
        r.next();
        if (r.getLong(1) > 0) {
          return false;
        }
      }
      if (!insertOperator(c, name, Permission.all(), null)) {
        return false;
      }
      insertToken(c, name, tokenHash, "created at first start", null);
      return true;
    });
  }

  private boolean insertOperator(Connection c, String name, Set<Permission> permissions, String passwordHash) throws SQLException {
    try (PreparedStatement s = c.prepareStatement(
        "INSERT INTO operators (name, permissions, password_hash, created_at) SELECT ?, ?, ?, ? "
            + "WHERE NOT EXISTS (SELECT 1 FROM operators WHERE name = ?)")) {
      s.setString(1, name);
      s.setString(2, Permission.join(permissions));
      s.setString(3, passwordHash);
      Rows.setInstant(s, 4, clock.instant());
      s.setString(5, name);
      return s.executeUpdate() == 1;
    }
  }

  /** Every operator, by name. */
  public List<Operator> operators() {
    return database.inTransaction(c -> {
      List<Operator> list = new ArrayList<>();
      try (PreparedStatement s = c.prepareStatement(
          "SELECT name, permissions, password_hash, created_at FROM operators ORDER BY name"); ResultSet r = s.executeQuery()) {
        while (r.next()) {
          list.add(new Operator(r.getString("name"), Permission.split(r.getString("permissions")),
              r.getString("password_hash") != null, Rows.getInstant(r, "created_at")));
        }
      }
      return list;
    });
  }

  /** Deletes an operator with its tokens and sessions; false when there was none. */
  public boolean deleteOperator(String name) {
    return database.inTransaction(c -> {
      try (PreparedStatement s = c.prepareStatement("DELETE FROM operators WHERE name = ?")) {
        s.setString(1, name);
        return s.executeUpdate() == 1;
      }
    });
  }

  /** The stored password hash and permissions of an operator, for login. */
  public Optional<Credentials> credentials(String name) {
    return database.inTransaction(c -> {
      try (PreparedStatement s = c.prepareStatement("SELECT permissions, password_hash FROM operators WHERE name = ?")) {
        s.setString(1, name);
        try (ResultSet r = s.executeQuery()) {
          if (!r.next()) {
            return Optional.empty();
          }
          return Optional.of(new Credentials(Permission.split(r.getString("permissions")), r.getString("password_hash")));
        }
      }
    });
  }

  /**
   * What login checks a password against.
   *
   * @param permissions the operator's permissions
   * @param passwordHash the stored hash, or null when the operator has no password
   */
  public record Credentials(Set<Permission> permissions, String passwordHash) {}

  /**
   * Stores a new token for an operator.
   *
   * @return the token's listing, or empty when the operator does not exist
   */
  public Optional<Token> createToken(String operator, String tokenHash, String description, Instant expiresAt) {
    return database.inTransaction(c -> {
      try (PreparedStatement s = c.prepareStatement("SELECT 1 FROM operators WHERE name = ?")) {
        s.setString(1, operator);
        try (ResultSet r = s.executeQuery()) {
          if (!r.next()) {
            return Optional.empty();
          }
        }
      }
      return Optional.of(insertToken(c, operator, tokenHash, description, expiresAt));
    });
  }

  private Token insertToken(Connection c, String operator, String tokenHash, String description, Instant expiresAt) throws SQLException {
    String id = UUID.randomUUID().toString();
    Instant now = clock.instant();
    try (PreparedStatement s = c.prepareStatement(
        "INSERT INTO api_tokens (id, operator_name, token_hash, description, created_at, expires_at) VALUES (?, ?, ?, ?, ?, ?)")) {
      s.setString(1, id);
      s.setString(2, operator);
      s.setString(3, tokenHash);
      s.setString(4, description);
      Rows.setInstant(s, 5, now);
      Rows.setInstant(s, 6, expiresAt);
      s.executeUpdate();
    }
    return new Token(id, operator, description, now, expiresAt, null);
  }

  /** Every token, newest first. */
  public List<Token> tokens() {
    return database.inTransaction(c -> {
      List<Token> list = new ArrayList<>();
      try (PreparedStatement s = c.prepareStatement(
          "SELECT id, operator_name, description, created_at, expires_at, revoked_at FROM api_tokens ORDER BY created_at DESC, id");
          ResultSet r = s.executeQuery()) {
        while (r.next()) {
          list.add(new Token(r.getString("id"), r.getString("operator_name"), r.getString("description"),
              Rows.getInstant(r, "created_at"), Rows.getInstant(r, "expires_at"), Rows.getInstant(r, "revoked_at")));
        }
      }
      return list;
    });
  }

  /** Revokes a token; false when there is no such token or it was already revoked. */
  public boolean revokeToken(String id) {
    return database.inTransaction(c -> {
      try (PreparedStatement s = c.prepareStatement("UPDATE api_tokens SET revoked_at = ? WHERE id = ? AND revoked_at IS NULL")) {
        Rows.setInstant(s, 1, clock.instant());
        s.setString(2, id);
        return s.executeUpdate() == 1;
      }
    });
  }

  /** The operator a live (not revoked, not expired) token belongs to. */
  public Optional<Principal> principalForToken(String tokenHash) {
    return database.inTransaction(c -> {
      try (PreparedStatement s = c.prepareStatement(
          "SELECT o.name, o.permissions FROM api_tokens t JOIN operators o ON o.name = t.operator_name "
              + "WHERE t.token_hash = ? AND t.revoked_at IS NULL AND (t.expires_at IS NULL OR t.expires_at > ?)")) {
        s.setString(1, tokenHash);
        Rows.setInstant(s, 2, clock.instant());
        try (ResultSet r = s.executeQuery()) {
          return r.next() ? Optional.of(new Principal(r.getString(1), Permission.split(r.getString(2)), null)) : Optional.empty();
        }
      }
    });
  }

  /** Stores a session. */
  public void createSession(String sessionHash, String operator, String csrfToken, Instant expiresAt) {
    database.inTransaction(c -> {
      try (PreparedStatement s = c.prepareStatement(
          "INSERT INTO sessions (session_hash, operator_name, csrf_token, created_at, expires_at) VALUES (?, ?, ?, ?, ?)")) {
        s.setString(1, sessionHash);
        s.setString(2, operator);
        s.setString(3, csrfToken);
        Rows.setInstant(s, 4, clock.instant());
        Rows.setInstant(s, 5, expiresAt);
        s.executeUpdate();
      }
      try (PreparedStatement s = c.prepareStatement("DELETE FROM sessions WHERE expires_at <= ?")) {
        Rows.setInstant(s, 1, clock.instant());
        s.executeUpdate();
      }
      return null;
    });
  }

  /** The operator of a live session, with the session's CSRF token. */
  public Optional<Principal> principalForSession(String sessionHash) {
    return database.inTransaction(c -> {
      try (PreparedStatement s = c.prepareStatement(
          "SELECT o.name, o.permissions, s.csrf_token FROM sessions s JOIN operators o ON o.name = s.operator_name "
              + "WHERE s.session_hash = ? AND s.expires_at > ?")) {
        s.setString(1, sessionHash);
        Rows.setInstant(s, 2, clock.instant());
        try (ResultSet r = s.executeQuery()) {
          return r.next()
              ? Optional.of(new Principal(r.getString(1), Permission.split(r.getString(2)), r.getString(3)))
              : Optional.empty();
        }
      }
    });
  }

  /** Ends a session. */
  public void deleteSession(String sessionHash) {
    database.inTransaction(c -> {
      try (PreparedStatement s = c.prepareStatement("DELETE FROM sessions WHERE session_hash = ?")) {
        s.setString(1, sessionHash);
        s.executeUpdate();
      }
      return null;
    });
  }
}
