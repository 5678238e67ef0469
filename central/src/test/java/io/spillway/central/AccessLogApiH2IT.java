package io.spillway.central;

/** The accessLog section's API rules on the embedded H2 database. */
class AccessLogApiH2IT extends AccessLogApiContract {

  AccessLogApiH2IT() {
    super(TestDatabase.Kind.H2);
  }
}
