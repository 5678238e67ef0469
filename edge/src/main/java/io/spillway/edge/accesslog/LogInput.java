package io.spillway.edge.accesslog;

import io.netty.handler.codec.http.HttpHeaders;
import io.spillway.edge.http.filter.StreamInfo;
import io.spillway.edge.http.message.RequestHeaders;
import io.spillway.edge.http.message.ResponseHeaders;
import java.util.random.RandomGenerator;

/**
 * What one access log line is made from: the finished stream's info and headers (a connection-level
 * line has no request, response or trailers) and the worker's random source. A local reply's body
 * ({@code local_reply_config}) is formatted from the same input while the stream is still running,
 * with the reply's text as {@code localReplyBody}.
 *
 * @param info timestamps, byte counts, flags, addresses, upstream host, route
 * @param request the request head, or null for a connection-level line
 * @param response the response head sent, or null when none was
 * @param trailers the response trailers sent, or null
 * @param random the worker's random source (runtime_filter sampling, UNIQUE_ID)
 * @param localReplyBody what {@code %LOCAL_REPLY_BODY%} prints: the local reply's text, or null
 *     (printed empty) outside a local reply
 * @param nowNanos for a stream still running (a local reply being made), the time (System.nanoTime)
 *     its duration runs to, as Envoy's {@code currentDuration}; 0 for a finished stream
 */
public record LogInput(StreamInfo info, RequestHeaders request, ResponseHeaders response, HttpHeaders trailers,
    RandomGenerator random, String localReplyBody, long nowNanos) {

  /** A finished stream's line, outside any local reply. */
  public LogInput(StreamInfo info, RequestHeaders request, ResponseHeaders response, HttpHeaders trailers,
      RandomGenerator random) {
    this(info, request, response, trailers, random, null, 0);
  }

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

  /**
   * The stream's duration in nanoseconds: start to end (to the last byte sent); for a stream still
   * running, start to {@link #nowNanos}; 0 when neither is known.
   */
  long durationNanos() {
    long end = info.endNanos() != 0 ? info.endNanos() : nowNanos;
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
    return code == 0 ? -1 : io.spillway.edge.http.message.GrpcStatus.fromHttp(code);
  }

  /** Whether the request is a gRPC call (content-type application/grpc...). */
  boolean isGrpcRequest() {
    String ct = requestHeader("content-type");
    return ct != null && ct.regionMatches(true, 0, "application/grpc", 0, 16);
  }
}
