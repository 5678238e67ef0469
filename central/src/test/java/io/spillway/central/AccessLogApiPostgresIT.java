package io.spillway.central;

/** The accessLog section's API rules on the real PostgreSQL, in a fresh schema. */
class AccessLogApiPostgresIT extends AccessLogApiContract {

  AccessLogApiPostgresIT() {
    super(TestDatabase.Kind.POSTGRESQL);
  }
}
