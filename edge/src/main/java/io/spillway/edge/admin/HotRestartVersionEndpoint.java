package io.spillway.edge.admin;

import java.util.function.Supplier;

/**
 * {@code /hot_restart_version}: the hot restart protocol version, as {@code --hot-restart-version}
 * prints it; {@code disabled} when this edge cannot hand its sockets over.
 */
final class HotRestartVersionEndpoint implements AdminEndpoint {
  private final Supplier<String> version;

  HotRestartVersionEndpoint(Supplier<String> version) {
    this.version = version;
  }

  @Override
  public String help() {
    return "print the hot restart compatibility version";
  }

  @Override
  public boolean mutating() {
    return false;
  }

  @Override
  public AdminResponse handle(AdminRequest request) {
    return AdminResponse.text(200, version.get() + "\n");
  }
}
