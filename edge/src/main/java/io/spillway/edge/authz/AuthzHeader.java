package io.spillway.edge.authz;

/**
 * A header change an authorization service asks for (Envoy's {@code HeaderValueOption} as the
 * ext_authz filter reads it). Names are lower case.
 */
public record AuthzHeader(String name, String value, Action action) {

  /** How the value meets a header already there. */
  public enum Action {
    /** The deprecated {@code append: true}: joined to an existing value with {@code ,}, else added. */
    APPEND_TO_VALUE,
    /** {@code APPEND_IF_EXISTS_OR_ADD}: one more header of that name. */
    ADD,
    /** {@code ADD_IF_ABSENT}: added only when no header of that name exists. */
    ADD_IF_ABSENT,
    /** {@code OVERWRITE_IF_EXISTS}: replaces an existing header, else nothing. */
    OVERWRITE_IF_EXISTS,
    /** {@code OVERWRITE_IF_EXISTS_OR_ADD} (and {@code append: false}): replaces or adds. */
    OVERWRITE
  }
}
