package io.spillway.edge.admin;

import java.nio.charset.StandardCharsets;

/** An admin response. */
public record AdminResponse(int status, String contentType, byte[] body) {

  public static AdminResponse text(int status, String text) {
    return new AdminResponse(status, "text/plain; charset=UTF-8", text.getBytes(StandardCharsets.UTF_8));
  }

  public static AdminResponse json(int status, String json) {
    return new AdminResponse(status, "application/json", json.getBytes(StandardCharsets.UTF_8));
  }
}
