package io.spillway.edge.admin;

import io.netty.handler.codec.http.QueryStringDecoder;
import io.spillway.edge.runtime.Runtime;
import java.nio.charset.StandardCharsets;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * {@code /runtime_modify} (POST): sets keys in the runtime's admin layer, from the query
 * ({@code ?key1=value1&key2=value2}) or a form-encoded body; an empty value removes the key. Without
 * an admin layer in {@code layered_runtime} the answer is 503, as in Envoy.
 */
final class RuntimeModifyEndpoint implements AdminEndpoint {
  private final Runtime runtime;

  RuntimeModifyEndpoint(Runtime runtime) {
    this.runtime = runtime;
  }

  @Override
  public String help() {
    return "modify runtime values in the admin layer: ?key1=value1&key2=value2 (an empty value removes the key)";
  }

  @Override
  public boolean mutating() {
    return true;
  }

  @Override
  public AdminResponse handle(AdminRequest request) {
    if (!runtime.hasAdminLayer()) {
      return AdminResponse.text(503, "No admin layer specified\n");
    }
    Map<String, String> changes = new LinkedHashMap<>();
    collect(request.params(), changes);
    if (request.body() != null && !request.body().isBlank()) {
      collect(new QueryStringDecoder(request.body(), StandardCharsets.UTF_8, false).parameters(), changes);
    }
    if (changes.isEmpty()) {
      return AdminResponse.badRequest("usage: /runtime_modify?key1=value1&key2=value2&keyN=valueN");
    }
    for (String key : changes.keySet()) {
      if (key.isBlank()) {
        return AdminResponse.badRequest("a runtime key must not be empty");
      }
    }
    runtime.modifyAdminLayer(changes);
    return AdminResponse.text(200, "OK\n");
  }

  private static void collect(Map<String, List<String>> params, Map<String, String> into) {
    params.forEach((k, v) -> into.put(k, v.isEmpty() ? "" : v.get(v.size() - 1)));
  }
}
