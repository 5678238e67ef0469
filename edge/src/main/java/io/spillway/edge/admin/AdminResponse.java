package io.spillway.edge.admin;

import java.nio.charset.StandardCharsets;

/**
 * An admin response.
 *
 * @param status the HTTP status
 * @param contentType the {@code Content-Type}
 * @param body the body
 * @param afterSent run on the admin event loop once the response is written, or null; for
 *     endpoints whose action must not race their own answer ({@code /quitquitquit})
 */
public record AdminResponse(int status, String contentType, byte[] body, Runnable afterSent) {

  public AdminResponse(int status, String contentType, byte[] body) {
    this(status, contentType, body, null);
  }

  public static AdminResponse text(int status, String text) {
    return new AdminResponse(status, "text/plain; charset=UTF-8", text.getBytes(StandardCharsets.UTF_8));
  }

  public static AdminResponse json(int status, String json) {
    return new AdminResponse(status, "application/json", json.getBytes(StandardCharsets.UTF_8));
  }

  /** Envoy's answer to a mutating request that succeeded: {@code OK} and a newline. */
  public static AdminResponse ok() {
    return text(200, "OK\n");
  }

  /** A 400 whose body is the message and a newline. */
  public static AdminResponse badRequest(String message) {
    return text(400, message + "\n");
  }

  /** This response, with {@code action} to run once it has been written. */
  public AdminResponse thenRun(Runnable action) {
    return new AdminResponse(status, contentType, body, action);
  }

  /** The body as UTF-8 text. */
  public String bodyText() {
    return new String(body, StandardCharsets.UTF_8);
  }
}
