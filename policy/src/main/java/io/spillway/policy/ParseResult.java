package io.spillway.policy;

import java.util.List;
import java.util.Objects;
import java.util.Optional;

/**
 * What {@link PolicyJson#parse} made of a JSON policy.
 *
 * @param policy the fields that could be read (never null; {@link OverloadPolicy#EMPTY} when the
 *     input was not a JSON object). Use it only when {@link #valid()}.
 * @param problems type, range and cross-field problems in order; empty when the policy is valid
 */
public record ParseResult(OverloadPolicy policy, List<Problem> problems) {

  /** Copies the problem list. */
  public ParseResult {
    Objects.requireNonNull(policy, "policy");
    problems = List.copyOf(problems);
  }

  /** Whether the policy may be stored and applied. */
  public boolean valid() {
    return problems.isEmpty();
  }

  /** The problem central logs when it rejects the policy with 400. */
  public Optional<Problem> firstProblem() {
    return problems.stream().findFirst();
  }
}
