package io.spillway.edge.admin;

/** Admin requests for endpoint tests, decoded as the admin server decodes them. */
final class Requests {
  private Requests() {}

  static AdminRequest get(String uri) {
    return AdminRequest.of("GET", uri, "");
  }

  static AdminRequest post(String uri) {
    return AdminRequest.of("POST", uri, "");
  }
}
