package io.spillway.central;

/** The rateLimits section's API rules on the real PostgreSQL, in a fresh schema. */
class RateLimitsApiPostgresIT extends RateLimitsApiContract {

  RateLimitsApiPostgresIT() {
    super(TestDatabase.Kind.POSTGRESQL);
  }
}
