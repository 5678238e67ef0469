package io.spillway.edge.filters.cors;

import io.spillway.edge.config.CorsPolicy;
import io.spillway.edge.config.Route.StringMatch;
import io.spillway.edge.http.filter.DecoderFilterCallbacks;
import io.spillway.edge.http.filter.EncoderFilterCallbacks;
import io.spillway.edge.http.filter.FilterHeadersStatus;
import io.spillway.edge.http.filter.StreamFilter;
import io.spillway.edge.http.message.Http2Fields;
import io.spillway.edge.http.message.RequestHeaders;
import io.spillway.edge.http.message.ResponseHeaders;
import io.spillway.edge.router.RouteEntry;
import io.spillway.edge.router.RouteMatcher;
import io.netty.handler.codec.http.HttpHeaders;
import java.util.random.RandomGenerator;

/**
 * One request's CORS (Envoy's {@code CorsFilter}; the Fetch standard's CORS protocol, formerly
 * W3C CORS). Only requests on a forwarding route whose policy is enabled for them and that carry
 * a non-empty {@code Origin} are CORS requests; the origin is counted valid or invalid.
 *
 * <ul>
 *   <li>A preflight ({@code OPTIONS} with {@code Access-Control-Request-Method}) is answered here
 *       with 200 and the policy's {@code access-control-allow-*} and {@code -max-age} headers
 *       (details {@code cors_response}) — unless its origin is not allowed and the policy forwards
 *       such preflights (the default), in which case it goes upstream untouched.
 *   <li>Any other response to an allowed origin, the preflight reply included, gets
 *       {@code access-control-allow-origin} (the request's origin), {@code -allow-credentials}
 *       and {@code -expose-headers} as the policy says.
 * </ul>
 *
 * <p>A policy enabled only in shadow mode ({@code shadow_enabled}, with {@code filter_enabled}
 * off for the request) counts the origin and changes nothing. Each fraction is drawn once per
 * request from the worker's random source.
 */
final class CorsFilter implements StreamFilter {
  static final String ORIGIN = "origin";
  static final String REQUEST_METHOD = "access-control-request-method";
  static final String REQUEST_HEADERS = "access-control-request-headers";
  static final String REQUEST_PRIVATE_NETWORK = "access-control-request-private-network";
  static final String ALLOW_ORIGIN = "access-control-allow-origin";
  static final String ALLOW_CREDENTIALS = "access-control-allow-credentials";
  static final String ALLOW_METHODS = "access-control-allow-methods";
  static final String ALLOW_HEADERS = "access-control-allow-headers";
  static final String MAX_AGE = "access-control-max-age";
  static final String EXPOSE_HEADERS = "access-control-expose-headers";
  static final String ALLOW_PRIVATE_NETWORK = "access-control-allow-private-network";
  static final String DETAILS = "cors_response";

  private final CorsFactory factory;
  private DecoderFilterCallbacks decoder;
  /** The policy of an enforced CORS request; null when this request is not one. */
  private CorsPolicy policy;
  /** The request's origin when the policy allows it, else null. */
  private String allowedOrigin;

  CorsFilter(CorsFactory factory) {
    this.factory = factory;
  }

  @Override
  public void setDecoderFilterCallbacks(DecoderFilterCallbacks callbacks) {
    this.decoder = callbacks;
  }

  @Override
  public void setEncoderFilterCallbacks(EncoderFilterCallbacks callbacks) {}

  @Override
  public FilterHeadersStatus decodeHeaders(RequestHeaders headers, boolean endStream) {
    RouteEntry route = decoder.route();
    if (route == null || route.routeAction() == null) {
      return FilterHeadersStatus.CONTINUE;
    }
    CorsPolicy p = factory.policyFor(route);
    if (p == null) {
      return FilterHeadersStatus.CONTINUE;
    }
    RandomGenerator random = decoder.worker().random();
    var runtime = factory.runtime();
    boolean enforced = runtime.featureEnabled(p.filterEnabled(), random);
    if (!enforced && !runtime.featureEnabled(p.shadowEnabled(), random)) {
      return FilterHeadersStatus.CONTINUE;
    }
    String origin = headers.header(ORIGIN);
    if (origin == null || origin.isEmpty()) {
      return FilterHeadersStatus.CONTINUE;
    }
    boolean allowed = isAllowed(p, origin);
    if (allowed) {
      factory.originValid.inc();
    } else {
      factory.originInvalid.inc();
    }
    if (!enforced) {
      return FilterHeadersStatus.CONTINUE;
    }
    policy = p;
    allowedOrigin = allowed ? origin : null;
    String requestMethod = headers.header(REQUEST_METHOD);
    if (!"OPTIONS".equals(headers.method()) || requestMethod == null || requestMethod.isEmpty()) {
      return FilterHeadersStatus.CONTINUE;
    }
    if (!allowed && p.forwardNotMatchingPreflights().orElse(true)) {
      return FilterHeadersStatus.CONTINUE;
    }
    decoder.streamInfo().setResponseCodeDetails(DETAILS);
    // Envoy answers a preflight with the filter's own encodeHeaders, not a local reply:
    // local_reply_config leaves it alone.
    decoder.sendResponse(new ResponseHeaders(200, preflightReply(p, headers, requestMethod, allowed)), null, null);
    return FilterHeadersStatus.STOP_ITERATION;
  }

  @Override
  public FilterHeadersStatus encodeHeaders(ResponseHeaders headers, boolean endStream) {
    if (allowedOrigin == null) {
      return FilterHeadersStatus.CONTINUE;
    }
    HttpHeaders h = headers.headers();
    h.set(ALLOW_ORIGIN, allowedOrigin);
    if (policy.allowCredentials().orElse(false)) {
      h.set(ALLOW_CREDENTIALS, "true");
    }
    if (!policy.exposeHeaders().isEmpty()) {
      h.set(EXPOSE_HEADERS, policy.exposeHeaders());
    }
    return FilterHeadersStatus.CONTINUE;
  }

  /** The preflight's answer; its allow-origin, credentials and expose headers also come from {@link #encodeHeaders}. */
  private static HttpHeaders preflightReply(CorsPolicy p, RequestHeaders request, String requestMethod,
      boolean allowed) {
    HttpHeaders h = Http2Fields.newFields();
    if (allowed) {
      h.set(ALLOW_ORIGIN, request.header(ORIGIN));
    }
    if (p.allowCredentials().orElse(false)) {
      h.set(ALLOW_CREDENTIALS, "true");
    }
    if (!p.allowMethods().isEmpty()) {
      h.set(ALLOW_METHODS, p.allowMethods().equals("*") ? requestMethod : p.allowMethods());
    }
    if (!p.allowHeaders().isEmpty()) {
      String requested = request.header(REQUEST_HEADERS);
      h.set(ALLOW_HEADERS, p.allowHeaders().equals("*") ? (requested == null ? "" : requested) : p.allowHeaders());
    }
    if (!p.maxAge().isEmpty()) {
      h.set(MAX_AGE, p.maxAge());
    }
    if (p.allowPrivateNetworkAccess().orElse(false) && "true".equals(request.header(REQUEST_PRIVATE_NETWORK))) {
      h.set(ALLOW_PRIVATE_NETWORK, "true");
    }
    return h;
  }

  /** Envoy's rule: a matcher that matches the literal {@code *} allows every origin. */
  private static boolean isAllowed(CorsPolicy p, String origin) {
    for (StringMatch m : p.allowOrigins()) {
      if (RouteMatcher.matches(m, "*") || RouteMatcher.matches(m, origin)) {
        return true;
      }
    }
    return false;
  }
}
