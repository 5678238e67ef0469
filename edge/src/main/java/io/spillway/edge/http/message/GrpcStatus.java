package io.spillway.edge.http.message;

/**
 * What the edge needs to know of gRPC over HTTP/2 to answer a gRPC call itself: whether a request
 * is one (Envoy's {@code Grpc::Common::hasGrpcContentType}), the gRPC status an HTTP status maps to
 * (Envoy's {@code Grpc::Utility::httpToGrpcStatus}, after gRPC's {@code http-grpc-status-mapping.md})
 * and the percent-encoding of {@code grpc-message} (gRPC's {@code PROTOCOL-HTTP2.md}, as Envoy
 * writes it).
 */
public final class GrpcStatus {

  public static final int UNKNOWN = 2;

  private static final String GRPC = "application/grpc";
  private static final char[] HEX = "0123456789ABCDEF".toCharArray();

  private GrpcStatus() {}

  /** {@code application/grpc}, alone or followed by {@code +suffix} or {@code ;params}. */
  public static boolean isGrpcContentType(String contentType) {
    return contentType != null && contentType.startsWith(GRPC) && (contentType.length() == GRPC.length()
        || contentType.charAt(GRPC.length()) == '+' || contentType.charAt(GRPC.length()) == ';');
  }

  /** The gRPC status of an HTTP status: 400 Internal, 401 Unauthenticated, 403 PermissionDenied, … */
  public static int fromHttp(int httpStatus) {
    return switch (httpStatus) {
      case 400 -> 13; // Internal
      case 401 -> 16; // Unauthenticated
      case 403 -> 7; // PermissionDenied
      case 404 -> 12; // Unimplemented
      case 429, 502, 503, 504 -> 14; // Unavailable
      default -> UNKNOWN;
    };
  }

  /**
   * {@code grpc-message}'s form of {@code text}: its UTF-8 bytes, each below space, from {@code ~}
   * up, and {@code %} written {@code %XX} (upper-case hex), the rest as they are. Envoy escapes
   * {@code ~} too; so does the edge, so a client sees the same header from both.
   */
  public static String encodeMessage(String text) {
    int i = 0;
    while (i < text.length() && !escaped(text.charAt(i))) {
      i++;
    }
    if (i == text.length()) {
      return text;
    }
    StringBuilder out = new StringBuilder(text.length() + 16).append(text, 0, i);
    byte[] bytes = text.substring(i).getBytes(java.nio.charset.StandardCharsets.UTF_8);
    for (byte b : bytes) {
      int c = b & 0xff;
      if (escaped((char) c)) {
        out.append('%').append(HEX[c >> 4]).append(HEX[c & 0xf]);
      } else {
        out.append((char) c);
      }
    }
    return out.toString();
  }

  private static boolean escaped(char c) {
    return c < ' ' || c >= '~' || c == '%';
  }
}
