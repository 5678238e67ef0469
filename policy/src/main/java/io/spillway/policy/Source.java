package io.spillway.policy;

/** Where a resolved value came from, in order of precedence. */
public enum Source {
  /** Set in the policy sent by central. */
  POLICY,
  /** The deployment's {@code HTTP_ADMISSION_*} / {@code HTTP_CLIENT_GUARD_*} variable. */
  ENVIRONMENT,
  /** Spillway's built-in default. */
  BUILT_IN
}
