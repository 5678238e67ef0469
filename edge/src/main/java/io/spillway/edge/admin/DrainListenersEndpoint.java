package io.spillway.edge.admin;

/**
 * {@code /drain_listeners} (POST): every listener stops accepting; with {@code ?graceful}, open
 * connections are also asked to drain (HTTP/1 {@code Connection: close}, HTTP/2 GOAWAY). The
 * process keeps running. {@code ?inboundonly} is accepted and changes nothing: every Spillway
 * listener is inbound.
 */
final class DrainListenersEndpoint implements AdminEndpoint {
  private final AdminContext context;

  DrainListenersEndpoint(AdminContext context) {
    this.context = context;
  }

  @Override
  public String help() {
    return "drain listeners; ?graceful also drains open connections, ?inboundonly (all listeners are inbound)";
  }

  @Override
  public boolean mutating() {
    return true;
  }

  @Override
  public AdminResponse handle(AdminRequest request) {
    context.drainListeners(request.has("graceful"));
    return AdminResponse.ok();
  }
}
