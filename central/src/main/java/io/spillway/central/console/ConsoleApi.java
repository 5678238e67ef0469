package io.spillway.central.console;

import io.javalin.http.HandlerType;
import io.spillway.central.api.ApiException;
import io.spillway.central.api.Reply;
import io.spillway.central.api.Router;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Objects;

/**
 * {@code GET /} (the console's page) and {@code GET /console/{file}} (its scripts, style sheet
 * and icon), public like the login they lead to. Every console response carries
 * {@link #SECURITY_HEADERS}: a Content-Security-Policy that lets the page load scripts, styles,
 * images and API calls from central's own origin only, run no inline script or style, build no
 * markup from strings (Trusted Types) and never be framed. The API's own responses are not
 * changed.
 */
public final class ConsoleApi {

  /** The Content-Security-Policy of every console response. */
  public static final String CONTENT_SECURITY_POLICY = String.join("; ",
      "default-src 'self'",
      "script-src 'self'",
      "style-src 'self'",
      "img-src 'self'",
      "connect-src 'self'",
      "font-src 'self'",
      "object-src 'none'",
      "base-uri 'none'",
      "form-action 'self'",
      "frame-ancestors 'none'",
      "require-trusted-types-for 'script'",
      "trusted-types 'none'");

  /** The headers every console response carries, besides the router's {@code Cache-Control} and {@code nosniff}. */
  public static final Map<String, String> SECURITY_HEADERS = securityHeaders();

  private final ConsoleFiles files;

  /** The routes over these files. */
  public ConsoleApi(ConsoleFiles files) {
    this.files = Objects.requireNonNull(files, "files");
  }

  /** Adds the routes. */
  public void register(Router router) {
    router.publicRoute(HandlerType.GET, "/", call -> reply("index.html"));
    router.publicRoute(HandlerType.GET, "/console/{file}", call -> {
      String name = call.pathParam("file");
      if (name.endsWith(".html")) {
        throw ApiException.of(404, "no such console file"); // the page itself is only at /
      }
      return reply(name);
    });
  }

  /** The file's reply with the security headers, or 404. */
  Reply reply(String name) {
    ConsoleFiles.File file = files.file(name).orElseThrow(() -> ApiException.of(404, "no such console file"));
    return new Reply(200, new Router.RawBody(file.mediaType(), file.bytes()), SECURITY_HEADERS);
  }

  private static Map<String, String> securityHeaders() {
    Map<String, String> headers = new LinkedHashMap<>();
    headers.put("Content-Security-Policy", CONTENT_SECURITY_POLICY);
    headers.put("X-Frame-Options", "DENY");
    headers.put("Referrer-Policy", "no-referrer");
    headers.put("Cross-Origin-Opener-Policy", "same-origin");
    headers.put("Cross-Origin-Resource-Policy", "same-origin");
    return Map.copyOf(headers);
  }
}
