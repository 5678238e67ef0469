package io.spillway.policy;

import java.util.Objects;

/**
 * One thing wrong with a policy.
 *
 * @param field the dotted JSON path of the field, e.g. {@code inbound.startShare}; empty for the
 *     policy as a whole
 * @param message one human-readable sentence that names the field and the rule, the same text
 *     central logs and the console shows
 */
public record Problem(String field, String message) {

  /** Checks both parts are present. */
  public Problem {
    Objects.requireNonNull(field, "field");
    Objects.requireNonNull(message, "message");
  }

  /** The message, which already names the field. */
  @Override
  public String toString() {
    return message;
  }
}
