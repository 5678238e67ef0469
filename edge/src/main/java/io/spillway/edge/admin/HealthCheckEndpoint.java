package io.spillway.edge.admin;

/**
 * {@code /healthcheck/fail} and {@code /healthcheck/ok} (POST): fail or restore the server's health
 * check. While failed, the server state is DRAINING and {@code /ready} answers 503, so load
 * balancers stop sending new traffic before a drain; serving continues.
 */
final class HealthCheckEndpoint implements AdminEndpoint {
  private final AdminContext context;
  private final boolean fail;

  /** @param fail whether this endpoint fails the health check ({@code /healthcheck/fail}) or restores it */
  HealthCheckEndpoint(AdminContext context, boolean fail) {
    this.context = context;
    this.fail = fail;
  }

  @Override
  public String help() {
    return fail ? "cause the server to fail health checks" : "cause the server to pass health checks";
  }

  @Override
  public boolean mutating() {
    return true;
  }

  @Override
  public AdminResponse handle(AdminRequest request) {
    context.setHealthCheckFailed(fail);
    return AdminResponse.ok();
  }
}
