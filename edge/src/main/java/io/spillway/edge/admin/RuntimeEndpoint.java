package io.spillway.edge.admin;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.spillway.edge.runtime.RuntimeSnapshot;
import java.util.List;
import java.util.Map;
import java.util.TreeSet;
import java.util.function.Supplier;

/**
 * {@code /runtime}: Envoy's runtime listing, {@code {"layers":[...],"entries":{key:{"final_value",
 * "layer_values"}}}}, with one layer value per layer ("" where the layer does not set the key).
 */
final class RuntimeEndpoint implements AdminEndpoint {
  private static final ObjectMapper JSON = new ObjectMapper();

  private final Supplier<RuntimeSnapshot> runtime;

  RuntimeEndpoint(Supplier<RuntimeSnapshot> runtime) {
    this.runtime = runtime;
  }

  @Override
  public String help() {
    return "print runtime values";
  }

  @Override
  public boolean mutating() {
    return false;
  }

  @Override
  public AdminResponse handle(AdminRequest request) {
    RuntimeSnapshot snapshot = runtime.get();
    ObjectNode root = JSON.createObjectNode();
    ArrayNode layers = root.putArray("layers");
    snapshot.layerNames().forEach(layers::add);
    ObjectNode entries = root.putObject("entries");
    List<Map<String, String>> values = snapshot.layerValues();
    for (String key : new TreeSet<>(snapshot.values().keySet())) {
      ObjectNode entry = entries.putObject(key);
      entry.put("final_value", snapshot.values().get(key));
      ArrayNode perLayer = entry.putArray("layer_values");
      for (Map<String, String> layer : values) {
        perLayer.add(layer.getOrDefault(key, ""));
      }
    }
    return AdminResponse.json(200, root.toPrettyString() + "\n");
  }
}
