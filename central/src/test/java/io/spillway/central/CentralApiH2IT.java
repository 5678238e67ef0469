package io.spillway.central;

/** The API rules on the embedded H2 database. */
class CentralApiH2IT extends CentralApiContract {

  CentralApiH2IT() {
    super(TestDatabase.Kind.H2);
  }
}
