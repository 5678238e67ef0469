package io.spillway.edge.accesslog;

import io.netty.handler.codec.http.HttpHeaders;
import io.spillway.edge.http.filter.StreamInfo;
import io.spillway.edge.http.message.RequestHeaders;
import io.spillway.edge.http.message.ResponseHeaders;
import java.util.random.RandomGenerator;

/**
 * What one access log line is made from: the finished stream's info and headers (a connection-level
 * line has no request, response or trailers) and the worker's random source.
 *
 * @param info timestamps, byte counts, flags, addresses, upstream host, route
 * @param request the request head, or null for a connection-level line
 * @param response the response head sent, or null when none was
 * @param trailers the response trailers sent, or null
 * @param random the worker's random source (runtime_filter sampling, UNIQUE_ID)
 */
public record LogInput(StreamInfo info, RequestHeaders request, ResponseHeaders response, HttpHeaders trailers,
    RandomGenerator random) {

  /** The request header {@code name} (lower case; {@code :method}, {@code :path}, {@code :authority} and {@code :scheme} too), or null. */
  String requestHeader(String name) {
    if (request == null) {
      return null;
    }
    if (!name.isEmpty() && name.charAt(0) == ':') {
      String v = switch (name) {
        case ":method" -> request.method();
        case ":path" -> request.pathAndQuery();
        case ":authority" -> request.authority();
        case ":scheme" -> request.scheme();
        default -> null;
      };
      return v == null || v.isEmpty() ? null : v;
    }
    return request.headers().get(name);
  }

  /** The response header {@code name} ({@code :status} too), or null. */
  String responseHeader(String name) {
    if (response == null) {
      return null;
    }
    if (name.equals(":status")) {
      return Integer.toString(response.status());
    }
    return response.headers().get(name);
  }

  /** The response trailer {@code name}, or null. */
  String trailer(String name) {
    return trailers == null ? null : trailers.get(name);
  }

  /** The stream's duration in nanoseconds: start to end (to the last byte sent). */
  long durationNanos() {
    long end = info.endNanos();
    return end == 0 ? 0 : end - info.startNanos();
  }

  /**
   * The gRPC status (Envoy's {@code Grpc::Common::getGrpcStatus}): {@code grpc-status} of the
   * trailers, else of the response head, else mapped from the HTTP status; -1 when there is none.
   */
  int grpcStatus() {
    String s = trailer("grpc-status");
    if (s == null) {
      s = responseHeader("grpc-status");
    }
    if (s != null) {
      try {
        return Integer.parseInt(s.trim());
      } catch (NumberFormatException e) {
        return 2; // Unknown
      }
    }
    int code = info.responseCode();
    if (code == 0) {
      return -1;
    }
    return switch (code) {
      case 400 -> 13;
      case 401 -> 16;
      case 403 -> 7;
      case 404 -> 12;
      case 429, 502, 503, 504 -> 14;
      default -> 2;
    };
  }

  /** Whether the request is a gRPC call (content-type application/grpc...). */
  boolean isGrpcRequest() {
    String ct = requestHeader("content-type");
    return ct != null && ct.regionMatches(true, 0, "application/grpc", 0, 16);
  }
}
