package io.spillway.central.api;

import java.util.LinkedHashMap;
import java.util.Map;

/**
 * What an endpoint answers.
 *
 * @param status the HTTP status
 * @param body what to write as JSON, or null for no body
 * @param headers extra response headers
 */
public record Reply(int status, Object body, Map<String, String> headers) {

  /** Copies the headers. */
  public Reply {
    headers = Map.copyOf(headers);
  }

  /** 200 with a JSON body. */
  public static Reply ok(Object body) {
    return new Reply(200, body, Map.of());
  }

  /** 201 with a JSON body. */
  public static Reply created(Object body) {
    return new Reply(201, body, Map.of());
  }

  /** 204 with no body. */
  public static Reply noContent() {
    return new Reply(204, null, Map.of());
  }

  /** This reply with one more header. */
  public Reply withHeader(String name, String value) {
    Map<String, String> more = new LinkedHashMap<>(headers);
    more.put(name, value);
    return new Reply(status, body, more);
  }
}
