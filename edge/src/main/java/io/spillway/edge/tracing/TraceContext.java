package io.spillway.edge.tracing;

import io.netty.handler.codec.http.HttpHeaders;
import io.netty.util.AsciiString;

/**
 * A span context carried by a request: trace id (64 or 128 bits), span id, parent span id and the
 * sampled flag, read from and written to request headers.
 *
 * <p>Read as Envoy's Zipkin {@code SpanContextExtractor} reads it: the single {@code b3} header
 * first ({@code traceid-spanid[-sampled[-parentid]]}, or a lone sampling flag {@code 0}, {@code 1}
 * or {@code d}), then {@code x-b3-traceid} / {@code x-b3-spanid} / {@code x-b3-parentspanid};
 * the sampled flag from {@code b3} or {@code x-b3-sampled} ({@code 1} or {@code true}), else the
 * local decision ({@code x-b3-flags} is not read, as in Envoy). When the request has no B3 header
 * at all, a W3C {@code traceparent} ({@code 00-traceid-parentid-flags}, sampled when bit 0 of the
 * flags is set) is continued, as Envoy's Zipkin tracer does with W3C fallback. A context that
 * cannot be parsed stops tracing for the request ({@link #INVALID}), as Envoy answers it with a
 * null span.
 *
 * @param traceIdHigh the upper 64 bits of a 128-bit trace id, 0 for a 64-bit one
 * @param traceIdLow the trace id's lower 64 bits
 * @param spanId the caller's span id
 * @param parentId the caller's parent span id, 0 when none
 * @param sampled the caller's sampled flag, or null when it did not say
 * @param w3c whether the context came in {@code traceparent}
 */
public record TraceContext(long traceIdHigh, long traceIdLow, long spanId, long parentId, Boolean sampled,
    boolean w3c) {

  static final AsciiString B3 = AsciiString.cached("b3");
  static final AsciiString X_B3_TRACE_ID = AsciiString.cached("x-b3-traceid");
  static final AsciiString X_B3_SPAN_ID = AsciiString.cached("x-b3-spanid");
  static final AsciiString X_B3_PARENT_SPAN_ID = AsciiString.cached("x-b3-parentspanid");
  static final AsciiString X_B3_SAMPLED = AsciiString.cached("x-b3-sampled");
  static final AsciiString TRACEPARENT = AsciiString.cached("traceparent");

  /** A malformed context: the request is not traced. */
  public static final TraceContext INVALID = new TraceContext(0, 0, 0, 0, null, false);

  /** No context at all. */
  static final TraceContext NONE = new TraceContext(0, 0, 0, 0, null, false);

  /** Only W3C {@code traceparent} (the OpenTelemetry tracer's propagation): {@link #INVALID} when malformed. */
  public static TraceContext extractW3c(HttpHeaders headers) {
    String traceparent = headers.get(TRACEPARENT);
    if (traceparent == null) {
      return NONE;
    }
    try {
      return traceparent(traceparent);
    } catch (NotHex e) {
      return INVALID;
    }
  }

  /** Whether the request carried a span to continue (false: only a sampling flag, or nothing). */
  public boolean hasSpan() {
    return spanId != 0 || traceIdLow != 0 || traceIdHigh != 0;
  }

  /** No span, only what the caller said about sampling (null: nothing). */
  private static TraceContext samplingOnly(Boolean sampled) {
    return new TraceContext(0, 0, 0, 0, sampled, false);
  }

  /** The context the request carries: {@link #INVALID} when malformed, one without a span when there is none. */
  public static TraceContext extract(HttpHeaders headers) {
    try {
      return parse(headers);
    } catch (NotHex e) {
      return INVALID;
    }
  }

  private static TraceContext parse(HttpHeaders headers) {
    String b3 = headers.get(B3);
    if (b3 != null) {
      return singleB3(b3);
    }
    String traceId = headers.get(X_B3_TRACE_ID);
    String spanId = headers.get(X_B3_SPAN_ID);
    String sampledHeader = headers.get(X_B3_SAMPLED);
    Boolean sampled = sampledHeader == null ? null : sampledHeader.equals("1") || sampledHeader.equals("true");
    if (traceId == null || spanId == null) {
      if (sampledHeader == null && traceId == null && spanId == null) {
        String traceparent = headers.get(TRACEPARENT);
        if (traceparent != null) {
          return traceparent(traceparent);
        }
      }
      return samplingOnly(sampled);
    }
    long high = 0;
    long low;
    if (traceId.length() == 32) {
      high = hex(traceId, 0, 16);
      low = hex(traceId, 16, 32);
    } else if (traceId.length() >= 1 && traceId.length() <= 16) {
      low = hex(traceId, 0, traceId.length());
    } else {
      return INVALID;
    }
    if (spanId.isEmpty() || spanId.length() > 16) {
      return INVALID;
    }
    long span = hex(spanId, 0, spanId.length());
    String parentHeader = headers.get(X_B3_PARENT_SPAN_ID);
    long parent = 0;
    if (parentHeader != null && !parentHeader.isEmpty()) {
      if (parentHeader.length() > 16) {
        return INVALID;
      }
      parent = hex(parentHeader, 0, parentHeader.length());
    }
    return new TraceContext(high, low, span, parent, sampled, false);
  }

  /** {@code b3: traceid-spanid[-sampled[-parentid]]} or a lone sampling flag. */
  private static TraceContext singleB3(String b3) {
    if (b3.length() == 1) {
      char c = b3.charAt(0);
      return validFlag(c) ? samplingOnly(c != '0') : INVALID;
    }
    int firstDash = b3.indexOf('-');
    if (firstDash != 16 && firstDash != 32) {
      return INVALID;
    }
    long high = firstDash == 32 ? hex(b3, 0, 16) : 0;
    long low = hex(b3, firstDash - 16, firstDash);
    int pos = firstDash + 1;
    if (b3.length() < pos + 16) {
      return INVALID;
    }
    long span = hex(b3, pos, pos + 16);
    pos += 16;
    Boolean sampled = null;
    long parent = 0;
    if (pos < b3.length()) {
      // -sampled, then optionally -parentid
      if (b3.charAt(pos) != '-' || b3.length() < pos + 2 || !validFlag(b3.charAt(pos + 1))) {
        return INVALID;
      }
      sampled = b3.charAt(pos + 1) != '0';
      pos += 2;
      if (pos < b3.length()) {
        if (b3.length() != pos + 17 || b3.charAt(pos) != '-') {
          return INVALID;
        }
        parent = hex(b3, pos + 1, pos + 17);
      }
    }
    return new TraceContext(high, low, span, parent, sampled, false);
  }

  /** W3C Trace Context: {@code version-traceid(32)-parentid(16)-flags(2)}. */
  private static TraceContext traceparent(String value) {
    if (value.length() < 55 || value.charAt(2) != '-' || value.charAt(35) != '-' || value.charAt(52) != '-'
        || (value.length() > 55 && value.charAt(55) != '-') || value.startsWith("ff")) {
      return INVALID;
    }
    long version = hex(value, 0, 2);
    long high = hex(value, 3, 19);
    long low = hex(value, 19, 35);
    long span = hex(value, 36, 52);
    long flags = hex(value, 53, 55);
    if ((version == 0 && value.length() != 55) || (high == 0 && low == 0) || span == 0) {
      return INVALID;
    }
    return new TraceContext(high, low, span, 0, (flags & 1) != 0, true);
  }

  private static boolean validFlag(char c) {
    return c == '0' || c == '1' || c == 'd';
  }

  /** A header field that is not hex: one preallocated instance, without a stack trace (client input). */
  private static final class NotHex extends RuntimeException {
    static final NotHex INSTANCE = new NotHex();

    private NotHex() {
      super("not hex", null, false, false);
    }
  }

  /** Hex digits {@code [from, to)} (at most 16) as a long. */
  static long hex(String s, int from, int to) {
    long v = 0;
    for (int i = from; i < to; i++) {
      char c = s.charAt(i);
      int d = c >= '0' && c <= '9' ? c - '0' : c >= 'a' && c <= 'f' ? c - 'a' + 10 : c >= 'A' && c <= 'F' ? c - 'A' + 10 : -1;
      if (d < 0) {
        throw NotHex.INSTANCE;
      }
      v = (v << 4) | d;
    }
    return v;
  }

  /** 16 lower-case hex digits. */
  static String hex16(long v) {
    char[] out = new char[16];
    hex16(v, out, 0);
    return new String(out);
  }

  static void hex16(long v, char[] out, int at) {
    for (int i = 15; i >= 0; i--) {
      out[at + i] = Character.forDigit((int) (v & 0xF), 16);
      v >>>= 4;
    }
  }

  /** A trace id as Zipkin writes it: 32 hex digits when it has upper bits, else 16. */
  static String traceIdHex(long high, long low) {
    if (high == 0) {
      return hex16(low);
    }
    char[] out = new char[32];
    hex16(high, out, 0);
    hex16(low, out, 16);
    return new String(out);
  }
}
