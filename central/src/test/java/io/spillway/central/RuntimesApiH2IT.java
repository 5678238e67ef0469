package io.spillway.central;

/** The runtime layer API rules on the embedded H2 database. */
class RuntimesApiH2IT extends RuntimesApiContract {

  RuntimesApiH2IT() {
    super(TestDatabase.Kind.H2);
  }
}
