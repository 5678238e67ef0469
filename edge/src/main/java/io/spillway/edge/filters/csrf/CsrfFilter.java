package io.spillway.edge.filters.csrf;

import io.spillway.edge.config.CsrfConfig;
import io.spillway.edge.config.Route.StringMatch;
import io.spillway.edge.http.filter.DecoderFilter;
import io.spillway.edge.http.filter.DecoderFilterCallbacks;
import io.spillway.edge.http.filter.FilterHeadersStatus;
import io.spillway.edge.http.message.RequestHeaders;
import io.spillway.edge.router.RouteMatcher;
import io.spillway.edge.runtime.RuntimeSnapshot;
import java.util.random.RandomGenerator;

/**
 * One request's CSRF check (Envoy's {@code CsrfFilter}). Only requests the policy is enabled for
 * ({@code filter_enabled}, or else {@code shadow_enabled}) and whose method changes state (POST,
 * PUT, DELETE, PATCH — Envoy's list) are checked. The source origin is the host and port of the
 * {@code Origin} URL, or of the {@code Referer} when {@code Origin} is absent or empty (a value that
 * is not an absolute URL counts as it is, so {@code Origin: null} is "null"); it is valid when it
 * equals the request's {@code Host} / {@code :authority} exactly, or one of
 * {@code additional_origins} matches it.
 *
 * <p>Counting, as Envoy counts: no source origin → {@code missing_source_origin} and
 * {@code request_invalid}; a mismatch → {@code request_invalid}; else {@code request_valid}. An
 * invalid request the policy enforces gets 403 {@code Invalid origin} with details
 * {@code csrf_origin_mismatch}; in shadow mode it goes on unchanged.
 */
final class CsrfFilter implements DecoderFilter {
  static final String BODY = "Invalid origin";
  static final String DETAILS = "csrf_origin_mismatch";

  private final CsrfFactory factory;
  private DecoderFilterCallbacks decoder;

  CsrfFilter(CsrfFactory factory) {
    this.factory = factory;
  }

  @Override
  public void setDecoderFilterCallbacks(DecoderFilterCallbacks callbacks) {
    this.decoder = callbacks;
  }

  @Override
  public FilterHeadersStatus decodeHeaders(RequestHeaders headers, boolean endStream) {
    CsrfConfig policy = factory.policyFor(decoder.route());
    RandomGenerator random = decoder.worker().random();
    RuntimeSnapshot runtime = factory.runtime();
    boolean enforced = runtime.featureEnabled(policy.filterEnabled(), random);
    if (!enforced && !runtime.featureEnabled(policy.shadowEnabled(), random)) {
      return FilterHeadersStatus.CONTINUE;
    }
    if (!isModifyMethod(headers.method())) {
      return FilterHeadersStatus.CONTINUE;
    }
    String source = sourceOrigin(headers);
    boolean valid = true;
    if (source.isEmpty()) {
      valid = false;
      factory.missingSourceOrigin.inc();
    }
    if (!isValid(policy, source, headers)) {
      valid = false;
      factory.requestInvalid.inc();
    }
    if (valid) {
      factory.requestValid.inc();
      return FilterHeadersStatus.CONTINUE;
    }
    if (!enforced) {
      return FilterHeadersStatus.CONTINUE;
    }
    decoder.streamInfo().setResponseCodeDetails(DETAILS);
    decoder.sendLocalReply(403, BODY, null);
    return FilterHeadersStatus.STOP_ITERATION;
  }

  /** Envoy's mutating methods: the ones a cross-site form or fetch can use to change state. */
  static boolean isModifyMethod(String method) {
    return switch (method) {
      case "POST", "PUT", "DELETE", "PATCH" -> true;
      default -> false;
    };
  }

  /** The host and port of {@code Origin}, else of {@code Referer}; "" when neither is there. */
  static String sourceOrigin(RequestHeaders headers) {
    String origin = hostAndPort(headers.header("origin"));
    return origin.isEmpty() ? hostAndPort(headers.header("referer")) : origin;
  }

  private static boolean isValid(CsrfConfig policy, String source, RequestHeaders headers) {
    String target = hostAndPort(headers.authority());
    if (source.equals(target)) {
      return true;
    }
    for (StringMatch m : policy.additionalOrigins()) {
      if (RouteMatcher.matches(m, source)) {
        return true;
      }
    }
    return false;
  }

  /**
   * The authority's host and port of an absolute URL ({@code scheme://[userinfo@]host[:port][/...]}),
   * or the value itself when it is not one (Envoy's {@code hostAndPort}); "" for null or "".
   */
  static String hostAndPort(String value) {
    if (value == null || value.isEmpty()) {
      return "";
    }
    int sep = value.indexOf("://");
    if (sep <= 0 || !isScheme(value, sep)) {
      return value;
    }
    int start = sep + 3;
    int end = start;
    while (end < value.length() && "/?#".indexOf(value.charAt(end)) < 0) {
      end++;
    }
    int at = value.lastIndexOf('@', end - 1);
    if (at >= start) {
      start = at + 1;
    }
    return start == end ? value : value.substring(start, end);
  }

  /** RFC 3986 §3.1: ALPHA *( ALPHA / DIGIT / "+" / "-" / "." ). */
  private static boolean isScheme(String value, int end) {
    for (int i = 0; i < end; i++) {
      char c = value.charAt(i);
      boolean alpha = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z');
      if (!alpha && (i == 0 || !((c >= '0' && c <= '9') || c == '+' || c == '-' || c == '.'))) {
        return false;
      }
    }
    return true;
  }
}
