package io.spillway.edge.admin;

import java.util.List;
import java.util.Map;

/** An admin request: method, path, decoded query parameters and body. */
public record AdminRequest(String method, String path, Map<String, List<String>> params, String body) {

  /** The first value of a query parameter, or null. */
  public String param(String name) {
    List<String> v = params.get(name);
    return v == null || v.isEmpty() ? null : v.get(0);
  }

  public boolean has(String name) {
    return params.containsKey(name);
  }
}
