package io.spillway.central;

/** The API rules on the real PostgreSQL, in a fresh schema. */
class CentralApiPostgresIT extends CentralApiContract {

  CentralApiPostgresIT() {
    super(TestDatabase.Kind.POSTGRESQL);
  }
}
