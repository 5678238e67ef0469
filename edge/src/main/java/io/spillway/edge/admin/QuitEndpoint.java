package io.spillway.edge.admin;

import java.time.Duration;

/**
 * {@code /quitquitquit} (POST): answers {@code OK}, then, once the answer is written, stops the
 * edge without waiting for in-flight requests and exits with status 0.
 */
final class QuitEndpoint implements AdminEndpoint {
  private final AdminContext context;

  QuitEndpoint(AdminContext context) {
    this.context = context;
  }

  @Override
  public String help() {
    return "exit the server";
  }

  @Override
  public boolean mutating() {
    return true;
  }

  @Override
  public AdminResponse handle(AdminRequest request) {
    return AdminResponse.ok().thenRun(() -> context.exitAfterDrain(Duration.ZERO));
  }
}
