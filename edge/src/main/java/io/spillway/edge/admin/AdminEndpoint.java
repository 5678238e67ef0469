package io.spillway.edge.admin;

/** One admin path. Runs on the admin event loop; must not block for long. */
public interface AdminEndpoint {

  /** One line for the admin index. */
  String help();

  /** Whether the endpoint changes state (POST only). */
  boolean mutating();

  AdminResponse handle(AdminRequest request);
}
