package io.spillway.central.api;

/**
 * Ends a request with a status and an optional JSON error message. Thrown by handlers and stores;
 * the router turns it into the response, so no handler writes error responses itself.
 */
public final class ApiException extends RuntimeException {

  private final int status;
  private final boolean emptyBody;

  private ApiException(int status, String message, boolean emptyBody) {
    super(message, null, false, false);
    this.status = status;
    this.emptyBody = emptyBody;
  }

  /** A response with {@code {"error": message}}. The message must not contain secrets. */
  public static ApiException of(int status, String message) {
    return new ApiException(status, message, false);
  }

  /** A response with no body at all (the policy API's 400, SPEC §6). */
  public static ApiException emptyBody(int status) {
    return new ApiException(status, "", true);
  }

  /** The HTTP status. */
  public int status() {
    return status;
  }

  /** Whether the response has no body. */
  public boolean emptyBody() {
    return emptyBody;
  }
}
