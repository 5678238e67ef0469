package io.spillway.central;

/** The runtime layer API rules on the real PostgreSQL, in a fresh schema. */
class RuntimesApiPostgresIT extends RuntimesApiContract {

  RuntimesApiPostgresIT() {
    super(TestDatabase.Kind.POSTGRESQL);
  }
}
