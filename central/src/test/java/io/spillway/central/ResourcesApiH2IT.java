package io.spillway.central;

/** The resource API rules on the embedded H2 database. */
class ResourcesApiH2IT extends ResourcesApiContract {

  ResourcesApiH2IT() {
    super(TestDatabase.Kind.H2);
  }
}
