package io.spillway.policy;

import java.util.List;

/**
 * An overload environment variable of the edge's deployment is invalid: not a value of its type,
 * out of range, or breaking a cross-field rule together with the other variables. The message
 * names each variable, its value and the rule, e.g. {@code HTTP_ADMISSION_START_SHARE="1.5":
 * inbound.startShare must be between 0.01 and 1}.
 */
public final class InvalidDeploymentDefaultsException extends IllegalArgumentException {

  private static final long serialVersionUID = 1L;

  /** The variables at fault, in table order (not serialised). */
  private final transient List<String> variables;

  InvalidDeploymentDefaultsException(List<String> variables, List<String> reasons) {
    super("Invalid deployment defaults: " + String.join("; ", reasons));
    this.variables = List.copyOf(variables);
  }

  /** The names of the variables at fault, in table order. */
  public List<String> variables() {
    return variables;
  }
}
