package io.spillway.edge.filters.jwtauthn;

import io.netty.buffer.ByteBuf;
import io.netty.handler.codec.http.HttpHeaders;
import io.spillway.edge.config.JwtAuthnConfig;
import io.spillway.edge.http.filter.DecoderFilter;
import io.spillway.edge.http.filter.DecoderFilterCallbacks;
import io.spillway.edge.http.filter.FilterDataStatus;
import io.spillway.edge.http.filter.FilterHeadersStatus;
import io.spillway.edge.http.filter.FilterTrailersStatus;
import io.spillway.edge.http.message.RequestHeaders;
import io.spillway.edge.router.RouteEntry;
import java.util.List;
import java.util.Map;

/**
 * One request's JWT authentication (Envoy's {@code jwt_authn} filter). The requirement is the
 * route's ({@code PerRouteConfig}: {@code disabled} or a {@code requirement_name}), else the first
 * matching rule's; CORS preflights pass when {@code bypass_cors_preflight} is set. The tokens are
 * verified inline against the providers' compiled keys, "now" being the request's arrival on the
 * wall clock. When a token needs a {@code remote_jwks} provider's keys that are not there yet (or
 * expired), the filter stops iteration and joins that provider's fetch; the worker goes on with
 * other work, and the fetch's end resumes the request on its own loop: the check runs again with
 * the fetched keys (or fails with "Jwks remote fetch is failed"), then the request continues or is
 * refused. Meanwhile the body waits behind the filter (watermarked). Verified: the payload goes to {@code forward_payload_header}
 * (base64url), claims to {@code claim_to_headers}, and a provider with {@code forward: false}
 * loses its token header. Refused: 401 (403 for an audience not allowed) with Envoy's status
 * string as body, {@code www-authenticate: Bearer realm="<original uri>"} (plus
 * {@code , error="invalid_token"} unless the token was missing) and response code details
 * {@code jwt_authn_access_denied{<status>}} (RFC 6750 §3).
 */
final class JwtAuthnFilter implements DecoderFilter {
  static final String DETAILS_PREFIX = "jwt_authn_access_denied";
  /** Envoy's {@code kMaximumUriLength}: the realm's path is cut to this many characters. */
  static final int MAX_URI_PATH = 256;

  private final JwtAuthnFactory factory;
  private DecoderFilterCallbacks decoder;
  /** While waiting for a remote fetch: the check and its verification; null otherwise. */
  private Requirements.Check waitingCheck;
  private Requirements.Verification waiting;
  private RequestHeaders headers;
  private boolean destroyed;

  JwtAuthnFilter(JwtAuthnFactory factory) {
    this.factory = factory;
  }

  @Override
  public void setDecoderFilterCallbacks(DecoderFilterCallbacks callbacks) {
    this.decoder = callbacks;
  }

  @Override
  public FilterHeadersStatus decodeHeaders(RequestHeaders headers, boolean endStream) {
    JwtAuthnConfig config = factory.config();
    if (config.bypassCorsPreflight() && isCorsPreflight(headers)) {
      factory.corsPreflightBypassed.inc();
      factory.allowed.inc();
      return FilterHeadersStatus.CONTINUE;
    }
    RouteEntry route = decoder.route();
    Requirements.Check check;
    if (route != null && route.filterConfig(factory.name()) instanceof JwtAuthnConfig.PerRoute perRoute) {
      if (perRoute.disabled()) {
        return FilterHeadersStatus.CONTINUE;
      }
      check = factory.named(perRoute.requirementName());
      if (check == null) {
        factory.denied.inc();
        String error = "Wrong requirement_name: " + perRoute.requirementName();
        decoder.streamInfo().setResponseCodeDetails(DETAILS_PREFIX + "{" + error + "}");
        decoder.sendLocalReply(403, "Failed JWT authentication: " + error, null);
        return FilterHeadersStatus.STOP_ITERATION;
      }
    } else {
      int rule = factory.ruleIndex(headers);
      check = rule < 0 ? null : factory.ruleCheck(rule);
    }
    if (check == null) {
      factory.allowed.inc();
      return FilterHeadersStatus.CONTINUE;
    }
    Requirements.Verification v = new Requirements.Verification(headers,
        decoder.streamInfo().startEpochNanos() / 1_000_000_000L);
    JwtStatus status = check.check(v);
    if (status == JwtStatus.KEYS_PENDING) {
      this.headers = headers;
      await(check, v);
      return FilterHeadersStatus.STOP_ITERATION;
    }
    return finish(status, v, headers) ? FilterHeadersStatus.CONTINUE : FilterHeadersStatus.STOP_ITERATION;
  }

  /** Joins the fetch of the provider the check waits for; {@link #onKeys} follows on this stream's loop. */
  private void await(Requirements.Check check, Requirements.Verification v) {
    waitingCheck = check;
    waiting = v;
    ProviderVerifier provider = v.pending();
    provider.remote().await(decoder.worker().loop(), decoder.worker(), keys -> onKeys(provider, keys));
  }

  /** The fetch ended: the check runs again with what it gave (each provider is fetched once per request). */
  private void onKeys(ProviderVerifier provider, JwksKeys keys) {
    if (destroyed) {
      return;
    }
    Requirements.Verification v = waiting;
    Requirements.Check check = waitingCheck;
    v.resolved(provider, keys);
    v.restart();
    JwtStatus status = check.check(v);
    if (status == JwtStatus.KEYS_PENDING) {
      await(check, v);
      return;
    }
    waiting = null;
    waitingCheck = null;
    if (finish(status, v, headers)) {
      decoder.continueDecoding();
    }
  }

  /** The verdict: counted; refused with Envoy's reply, or the verified tokens' effects applied. True when allowed. */
  private boolean finish(JwtStatus status, Requirements.Verification v, RequestHeaders headers) {
    if (status != JwtStatus.OK) {
      factory.denied.inc();
      refuse(status, headers, factory.config().stripFailureResponse());
      return false;
    }
    factory.allowed.inc();
    for (int i = 0; i < v.successes.size(); i++) {
      forward(v.successes.get(i), headers.headers());
      if (v.successes.get(i).verified().claims().get("sub") instanceof String subject && !subject.isEmpty()) {
        decoder.streamInfo().setAuthenticatedSubject(subject);
      }
    }
    return true;
  }

  @Override
  public FilterDataStatus decodeData(ByteBuf data, boolean endStream) {
    return waiting != null ? FilterDataStatus.STOP_ITERATION_AND_WATERMARK : FilterDataStatus.CONTINUE;
  }

  @Override
  public FilterTrailersStatus decodeTrailers(HttpHeaders trailers) {
    return waiting != null ? FilterTrailersStatus.STOP_ITERATION : FilterTrailersStatus.CONTINUE;
  }

  @Override
  public void onDestroy() {
    destroyed = true; // a fetch that ends later finds the stream gone and does nothing
    waiting = null;
    waitingCheck = null;
  }

  private void refuse(JwtStatus status, RequestHeaders headers, boolean strip) {
    decoder.streamInfo().setResponseCodeDetails(DETAILS_PREFIX + "{" + status.message() + "}");
    if (strip) {
      decoder.sendLocalReply(status.httpStatus(), "", null);
      return;
    }
    String challenge = "Bearer realm=\"" + originalUri(headers) + "\""
        + (status == JwtStatus.MISSING ? "" : ", error=\"invalid_token\"");
    decoder.sendLocalReply(status.httpStatus(), status.message(), null, h -> h.set("www-authenticate", challenge));
  }

  /** Envoy's {@code buildOriginalUri}: forwarded scheme, host, and the original path (cut to 256 characters). */
  static String originalUri(RequestHeaders headers) {
    String scheme = headers.header("x-forwarded-proto");
    if (scheme == null || scheme.isEmpty()) {
      scheme = headers.scheme() == null || headers.scheme().isEmpty() ? "http" : headers.scheme();
    }
    String path = headers.header("x-envoy-original-path");
    if (path == null) {
      path = headers.pathAndQuery();
    }
    if (path.length() > MAX_URI_PATH) {
      path = path.substring(0, MAX_URI_PATH);
    }
    String host = headers.authority() == null ? "" : headers.authority();
    return scheme + "://" + host + path;
  }

  private static boolean isCorsPreflight(RequestHeaders headers) {
    if (!"OPTIONS".equals(headers.method())) {
      return false;
    }
    String origin = headers.header("origin");
    String method = headers.header("access-control-request-method");
    return origin != null && !origin.isEmpty() && method != null && !method.isEmpty();
  }

  /** A verified token's effects on the request sent upstream. */
  private static void forward(Requirements.Success success, HttpHeaders headers) {
    JwtAuthnConfig.Provider p = success.verified().provider().config();
    if (!p.forward() && success.token().header() != null) {
      headers.remove(success.token().header());
    }
    if (!p.forwardPayloadHeader().isEmpty()) {
      String payload = success.verified().payloadSegment();
      headers.set(p.forwardPayloadHeader(), p.padForwardPayloadHeader() ? pad(payload) : unpad(payload));
    }
    List<JwtAuthnConfig.ClaimToHeader> claims = p.claimToHeaders();
    for (int i = 0; i < claims.size(); i++) {
      String value = claimValue(success.verified().claims(), claims.get(i).claim());
      if (value != null) {
        headers.set(claims.get(i).header(), value);
      }
    }
  }

  static String pad(String base64url) {
    String s = unpad(base64url);
    int rem = s.length() % 4;
    return rem == 0 ? s : s + "=".repeat(4 - rem);
  }

  private static String unpad(String base64url) {
    int end = base64url.length();
    while (end > 0 && base64url.charAt(end - 1) == '=') {
      end--;
    }
    return base64url.substring(0, end);
  }

  /**
   * A claim as a header value, {@code a.b} naming a nested claim: a string as it is, a number
   * (an integer without a fraction) or a boolean as text; null when absent or another type.
   */
  static String claimValue(Map<String, Object> claims, String path) {
    Object value = claims.get(path);
    if (value == null && path.indexOf('.') > 0) {
      Object at = claims;
      for (String part : path.split("\\.")) {
        if (!(at instanceof Map<?, ?> m)) {
          return null;
        }
        at = m.get(part);
      }
      value = at;
    }
    return switch (value) {
      case null -> null;
      case String s -> s;
      case Boolean b -> b.toString();
      case Number n -> n.doubleValue() == Math.rint(n.doubleValue()) && Math.abs(n.doubleValue()) < 9.0e15
          ? Long.toString(n.longValue()) : n.toString();
      default -> null;
    };
  }
}
