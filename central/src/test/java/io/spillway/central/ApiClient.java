package io.spillway.central;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;

/** A small JDK HttpClient wrapper for talking to central in tests. */
public final class ApiClient {

  private static final ObjectMapper JSON = new ObjectMapper();

  private final HttpClient http = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(5)).build();
  private final String base;

  public ApiClient(int port) {
    this.base = "http://127.0.0.1:" + port;
  }

  /** One request; {@code token} and {@code contentType} may be null. */
  public HttpResponse<String> send(String method, String path, String token, String contentType, byte[] body) {
    HttpRequest.Builder request = HttpRequest.newBuilder(URI.create(base + path)).timeout(Duration.ofSeconds(30))
        .method(method, body == null ? HttpRequest.BodyPublishers.noBody() : HttpRequest.BodyPublishers.ofByteArray(body));
    if (token != null) {
      request.header("Authorization", "Bearer " + token);
    }
    if (contentType != null) {
      request.header("Content-Type", contentType);
    }
    try {
      return http.send(request.build(), HttpResponse.BodyHandlers.ofString());
    } catch (IOException e) {
      throw new java.io.UncheckedIOException(e);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException(e);
    }
  }

  HttpResponse<String> send(HttpRequest.Builder request) throws IOException, InterruptedException {
    return http.send(request.build(), HttpResponse.BodyHandlers.ofString());
  }

  URI uri(String path) {
    return URI.create(base + path);
  }

  HttpResponse<String> get(String path, String token) {
    return send("GET", path, token, null, null);
  }

  HttpResponse<String> json(String method, String path, String token, String body) {
    return send(method, path, token, "application/json", body.getBytes(java.nio.charset.StandardCharsets.UTF_8));
  }

  static JsonNode parse(HttpResponse<String> response) {
    try {
      return JSON.readTree(response.body());
    } catch (IOException e) {
      throw new AssertionError("not JSON: " + response.body(), e);
    }
  }

  static JsonNode parse(String text) {
    try {
      return JSON.readTree(text);
    } catch (IOException e) {
      throw new AssertionError("not JSON: " + text, e);
    }
  }

  /**
   * Sends a body over the server's size limit. The server answers 413 and closes while the client
   * may still be writing; the close can then reach the client before the answer (an HTTP/1.1 race,
   * not a server fault), so the request is tried up to three times.
   */
  HttpResponse<String> sendOversized(String method, String path, String token, String contentType, byte[] body) {
    java.io.UncheckedIOException last = null;
    for (int attempt = 0; attempt < 3; attempt++) {
      try {
        return send(method, path, token, contentType, body);
      } catch (java.io.UncheckedIOException e) {
        last = e;
      }
    }
    throw last;
  }
}
