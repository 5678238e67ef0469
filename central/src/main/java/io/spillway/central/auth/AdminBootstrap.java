package io.spillway.central.auth;

import java.io.PrintStream;
import java.util.Objects;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * First start: when no operator exists, creates {@code admin} with every permission and an API
 * token. The token comes from {@code SPILLWAY_ADMIN_TOKEN} when set (how deployments and tests
 * bootstrap); otherwise one is generated and printed once to standard output — never to the log.
 * There is no default password.
 */
public final class AdminBootstrap {

  private static final Logger log = LoggerFactory.getLogger(AdminBootstrap.class);

  /** The first administrator's name. */
  public static final String ADMIN = "admin";

  private AdminBootstrap() {}

  /**
   * Creates the administrator if needed.
   *
   * @param presetToken the token to use, or null to generate one
   * @param console where a generated token is printed
   * @return whether the administrator was created now
   */
  public static boolean run(AuthStore store, Secrets secrets, String presetToken, PrintStream console) {
    Objects.requireNonNull(console, "console");
    if (store.anyOperator()) {
      return false;
    }
    if (presetToken != null && presetToken.length() < 16) {
      throw new IllegalArgumentException("SPILLWAY_ADMIN_TOKEN must be at least 16 characters");
    }
    String token = presetToken != null ? presetToken : secrets.generate(AuthApi.TOKEN_PREFIX);
    if (!store.createFirstAdmin(ADMIN, Secrets.hash(token))) {
      return false;
    }
    if (presetToken != null) {
      log.info("created operator {} with every permission; its API token is the one in SPILLWAY_ADMIN_TOKEN", ADMIN);
    } else {
      log.info("created operator {} with every permission; its API token is printed once on standard output", ADMIN);
      console.println("Spillway central: first start. API token of operator '" + ADMIN + "' (shown once, store it now):");
      console.println(token);
      console.flush();
    }
    return true;
  }
}
