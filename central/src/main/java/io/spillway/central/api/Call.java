package io.spillway.central.api;

import com.fasterxml.jackson.databind.JsonNode;
import io.javalin.http.Context;
import io.spillway.central.auth.Principal;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.util.Locale;
import java.util.Set;
import java.util.TreeSet;

/**
 * One request as an endpoint sees it: the authenticated operator, path and query parameters, and
 * a JSON body read under the content-type, size and nesting rules of SPEC §7.
 */
public final class Call {

  private final Context context;
  private final Principal principal;
  private final Json json;
  private final int maxBodyBytes;

  Call(Context context, Principal principal, Json json, int maxBodyBytes) {
    this.context = context;
    this.principal = principal;
    this.json = json;
    this.maxBodyBytes = maxBodyBytes;
  }

  /** The operator; null only on public routes. */
  public Principal principal() {
    return principal;
  }

  /** A path parameter of the route template. */
  public String pathParam(String name) {
    return context.pathParam(name);
  }

  /** A query parameter, or null. */
  public String queryParam(String name) {
    return context.queryParam(name);
  }

  /** A request header, or null. */
  public String header(String name) {
    return context.header(name);
  }

  /** The client's address as the socket sees it (forwarding headers are not trusted). */
  public String clientAddress() {
    return context.req().getRemoteAddr();
  }

  /** A request cookie, or null. */
  public String cookie(String name) {
    return context.cookie(name);
  }

  /**
   * The body as JSON.
   *
   * @throws ApiException 415 unless the content type is {@code application/json} (or
   *     {@code application/merge-patch+json}), 413 when the body is larger than the limit, 400
   *     when it is not one JSON document within the nesting limit
   */
  public JsonNode jsonBody() {
    String type = context.header("Content-Type");
    String mediaType = type == null ? "" : type.split(";", 2)[0].trim().toLowerCase(Locale.ROOT);
    if (!mediaType.equals("application/json") && !mediaType.equals("application/merge-patch+json")) {
      throw ApiException.of(415, "the request body must be application/json");
    }
    checkLength();
    return json.parse(readLimited());
  }

  /**
   * The body as bytes, for endpoints that take more than JSON (Envoy resources in YAML or JSON).
   *
   * @param mediaTypes the accepted media types, lower case
   * @return the media type sent (lower case, without parameters) and the bytes
   * @throws ApiException 415 unless the content type is one of {@code mediaTypes}, 413 when the
   *     body is larger than the limit
   */
  public Body body(Set<String> mediaTypes) {
    String type = context.header("Content-Type");
    String mediaType = type == null ? "" : type.split(";", 2)[0].trim().toLowerCase(Locale.ROOT);
    if (!mediaTypes.contains(mediaType)) {
      throw ApiException.of(415, "the request body must be one of " + new TreeSet<>(mediaTypes));
    }
    checkLength();
    return new Body(mediaType, readLimited());
  }

  /**
   * A request body.
   *
   * @param mediaType its media type, lower case, without parameters
   * @param bytes its content
   */
  public record Body(String mediaType, byte[] bytes) {}

  private void checkLength() {
    String length = context.header("Content-Length");
    if (length != null) {
      try {
        if (Long.parseLong(length.trim()) > maxBodyBytes) {
          throw ApiException.of(413, "the request body is larger than " + maxBodyBytes + " bytes");
        }
      } catch (NumberFormatException e) {
        throw ApiException.of(400, "bad Content-Length");
      }
    }
  }

  private byte[] readLimited() {
    try (InputStream in = context.bodyInputStream()) {
      ByteArrayOutputStream out = new ByteArrayOutputStream();
      byte[] buffer = new byte[8192];
      int total = 0;
      int read;
      while ((read = in.read(buffer)) != -1) {
        total += read;
        if (total > maxBodyBytes) {
          throw ApiException.of(413, "the request body is larger than " + maxBodyBytes + " bytes");
        }
        out.write(buffer, 0, read);
      }
      return out.toByteArray();
    } catch (IOException e) {
      throw ApiException.of(400, "the request body could not be read");
    }
  }
}
