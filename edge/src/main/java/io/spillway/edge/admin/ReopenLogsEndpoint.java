package io.spillway.edge.admin;

/**
 * {@code /reopen_logs} (POST): every access log file is closed and reopened before its next write,
 * so a file logrotate renamed is left alone and the path is created again (Envoy's endpoint).
 */
final class ReopenLogsEndpoint implements AdminEndpoint {
  private final AdminContext context;

  ReopenLogsEndpoint(AdminContext context) {
    this.context = context;
  }

  @Override
  public String help() {
    return "reopen access logs";
  }

  @Override
  public boolean mutating() {
    return true;
  }

  @Override
  public AdminResponse handle(AdminRequest request) {
    context.reopenAccessLogs();
    return AdminResponse.ok();
  }
}
