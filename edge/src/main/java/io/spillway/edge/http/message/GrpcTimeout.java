package io.spillway.edge.http.message;

import java.util.concurrent.TimeUnit;

/**
 * The {@code grpc-timeout} request header of gRPC over HTTP/2: up to eight ASCII digits and a unit,
 * {@code H}, {@code M}, {@code S}, {@code m}, {@code u} or {@code n}.
 */
public final class GrpcTimeout {
  /** The header's name. */
  public static final String HEADER = "grpc-timeout";
  /** No timeout, or one that does not parse. */
  public static final long NONE = -1;
  private static final int MAX_DIGITS = 8;

  private GrpcTimeout() {}

  /** The timeout in nanoseconds (saturating), or {@link #NONE} for a missing or malformed value. */
  public static long parseNanos(CharSequence value) {
    if (value == null || value.length() < 2 || value.length() > MAX_DIGITS + 1) {
      return NONE;
    }
    long n = 0;
    for (int i = 0; i < value.length() - 1; i++) {
      char c = value.charAt(i);
      if (c < '0' || c > '9') {
        return NONE;
      }
      n = n * 10 + (c - '0');
    }
    TimeUnit unit = switch (value.charAt(value.length() - 1)) {
      case 'H' -> TimeUnit.HOURS;
      case 'M' -> TimeUnit.MINUTES;
      case 'S' -> TimeUnit.SECONDS;
      case 'm' -> TimeUnit.MILLISECONDS;
      case 'u' -> TimeUnit.MICROSECONDS;
      case 'n' -> TimeUnit.NANOSECONDS;
      default -> null;
    };
    return unit == null ? NONE : unit.toNanos(n);
  }

  /**
   * The header value for a timeout, in milliseconds as Envoy writes it ({@code 1500m}), in a
   * coarser unit when the milliseconds need more than eight digits.
   */
  public static String format(long nanos) {
    long ms = TimeUnit.NANOSECONDS.toMillis(nanos);
    if (ms <= 99_999_999L) {
      return ms + "m";
    }
    long s = ms / 1000;
    if (s <= 99_999_999L) {
      return s + "S";
    }
    long m = s / 60;
    return m <= 99_999_999L ? m + "M" : Math.min(m / 60, 99_999_999L) + "H";
  }
}
