package io.spillway.central;

/** The resource API rules on the real PostgreSQL, in a fresh schema. */
class ResourcesApiPostgresIT extends ResourcesApiContract {

  ResourcesApiPostgresIT() {
    super(TestDatabase.Kind.POSTGRESQL);
  }
}
