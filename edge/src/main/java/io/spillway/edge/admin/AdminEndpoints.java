package io.spillway.edge.admin;

import java.util.LinkedHashMap;
import java.util.Map;

/** The table of admin paths. */
final class AdminEndpoints {
  private AdminEndpoints() {}

  static Map<String, AdminEndpoint> all(AdminContext context) {
    Map<String, AdminEndpoint> m = new LinkedHashMap<>();
    m.put("/ready", new AdminEndpoint() {
      @Override
      public String help() {
        return "print server state, return 200 if LIVE, otherwise return 503";
      }

      @Override
      public boolean mutating() {
        return false;
      }

      @Override
      public AdminResponse handle(AdminRequest request) {
        if (context.isReady()) {
          return AdminResponse.text(200, "LIVE\n");
        }
        return AdminResponse.text(503, context.isDraining() ? "DRAINING\n" : "PRE_INITIALIZING\n");
      }
    });
    return m;
  }
}
