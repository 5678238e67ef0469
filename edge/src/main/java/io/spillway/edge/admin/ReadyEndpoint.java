package io.spillway.edge.admin;

/** {@code /ready}: the server state as text; 200 when LIVE, 503 otherwise (Envoy's readiness probe). */
final class ReadyEndpoint implements AdminEndpoint {
  private final AdminContext context;

  ReadyEndpoint(AdminContext context) {
    this.context = context;
  }

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
    ServerState state = ServerState.of(context);
    return AdminResponse.text(state == ServerState.LIVE ? 200 : 503, state.name() + "\n");
  }
}
