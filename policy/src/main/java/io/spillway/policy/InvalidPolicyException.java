package io.spillway.policy;

import java.util.List;

/** A policy that fails validation was given where only a valid one may go; the message is the first problem. */
public final class InvalidPolicyException extends IllegalArgumentException {

  private static final long serialVersionUID = 1L;

  /** The problems, in order (not serialised). */
  private final transient List<Problem> problems;

  InvalidPolicyException(List<Problem> problems) {
    super(problems.get(0).message());
    this.problems = List.copyOf(problems);
  }

  /** Every problem, in the order {@link PolicyValidator} reports them. */
  public List<Problem> problems() {
    return problems;
  }
}
