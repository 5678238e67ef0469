package io.spillway.edge.admin;

/**
 * {@code /runtime}: Envoy's runtime listing, {@code {"layers":[...],"entries":{...}}}. No runtime
 * layer exists yet, so both are empty; the layers come with the runtime issue.
 */
final class RuntimeEndpoint implements AdminEndpoint {

  @Override
  public String help() {
    return "print runtime values (no runtime layers configured yet: empty)";
  }

  @Override
  public boolean mutating() {
    return false;
  }

  @Override
  public AdminResponse handle(AdminRequest request) {
    return AdminResponse.json(200, "{\"layers\":[],\"entries\":{}}\n");
  }
}
