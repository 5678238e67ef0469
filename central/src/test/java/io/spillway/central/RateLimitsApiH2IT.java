package io.spillway.central;

/** The rateLimits section's API rules on the embedded H2 database. */
class RateLimitsApiH2IT extends RateLimitsApiContract {

  RateLimitsApiH2IT() {
    super(TestDatabase.Kind.H2);
  }
}
