package io.spillway.edge.admin;

import java.util.Map;

/** {@code /} and {@code /help}: every admin path with its help line, as Envoy's {@code /help} lists them. */
final class HelpEndpoint implements AdminEndpoint {
  private final Map<String, AdminEndpoint> endpoints;

  /** @param endpoints the admin path table, read when a request comes (it may include this endpoint) */
  HelpEndpoint(Map<String, AdminEndpoint> endpoints) {
    this.endpoints = endpoints;
  }

  @Override
  public String help() {
    return "print out list of admin commands";
  }

  @Override
  public boolean mutating() {
    return false;
  }

  @Override
  public AdminResponse handle(AdminRequest request) {
    return AdminResponse.text(200, index(endpoints));
  }

  /** {@code admin commands are:} then one {@code   <path>[ (POST)]: <help>} line per path. */
  static String index(Map<String, AdminEndpoint> endpoints) {
    StringBuilder sb = new StringBuilder("admin commands are:\n");
    for (Map.Entry<String, AdminEndpoint> e : endpoints.entrySet()) {
      sb.append("  ").append(e.getKey()).append(e.getValue().mutating() ? " (POST)" : "").append(": ")
          .append(e.getValue().help()).append('\n');
    }
    return sb.toString();
  }
}
