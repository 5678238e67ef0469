package io.spillway.edge.admin;

import io.netty.handler.codec.http.QueryStringDecoder;
import java.util.List;
import java.util.Map;

/** An admin request: method, path, decoded query parameters and body. */
public record AdminRequest(String method, String path, Map<String, List<String>> params, String body) {

  public AdminRequest {
    params = Map.copyOf(params);
  }

  /**
   * Decodes the path and query string of a request URI such as {@code /stats?filter=cluster&usedonly}.
   * Values are percent-decoded only: a {@code +} stays a plus, so {@code ?filter=rq_\d+} is the
   * regex it looks like (a space is {@code %20}).
   */
  public static AdminRequest of(String method, String uri, String body) {
    QueryStringDecoder decoder = QueryStringDecoder.builder().htmlQueryDecoding(false).build(uri);
    return new AdminRequest(method, decoder.path(), decoder.parameters(), body);
  }

  /** The first value of a query parameter, or null. */
  public String param(String name) {
    List<String> v = params.get(name);
    return v == null || v.isEmpty() ? null : v.get(0);
  }

  /** Whether the query has the parameter, with or without a value ({@code ?usedonly}). */
  public boolean has(String name) {
    return params.containsKey(name);
  }
}
