package io.spillway.edge.filters.router;

import io.spillway.edge.config.Route;
import io.spillway.edge.http.message.RequestHeaders;
import io.spillway.edge.router.RouteEntry;

/** The path rewrites of a route and the Location of a redirect (Envoy's route entry rules). */
final class Redirects {
  private Redirects() {}

  /** A prefix match has its prefix replaced, an exact path match the whole path; the query stays. */
  static String rewritePath(RouteEntry entry, RequestHeaders request, String replacement) {
    String path = request.path();
    String rewritten = entry.route().match().path() instanceof Route.PathMatch.Prefix p
        ? replacement + path.substring(Math.min(p.prefix().length(), path.length()))
        : replacement;
    if (rewritten.isEmpty() || rewritten.charAt(0) != '/') {
      rewritten = "/" + rewritten;
    }
    return request.query().isEmpty() ? rewritten : rewritten + "?" + request.query();
  }

  static String location(Route.Redirect r, RouteEntry entry, RequestHeaders request, boolean tls) {
    String authority = request.authority();
    String scheme = r.scheme().orElse(tls ? "https" : "http");
    String hostPart = r.host().orElse(host(authority));
    String port = r.port().map(p -> ":" + p).orElse(r.host().isPresent() ? "" : port(authority));
    if (r.port().isPresent() && ((scheme.equals("http") && r.port().get() == 80)
        || (scheme.equals("https") && r.port().get() == 443))) {
      port = "";
    }
    String path = request.path();
    String newPath = path;
    if (r.path().isPresent()) {
      newPath = r.path().get();
    } else if (r.prefixRewrite().isPresent()) {
      newPath = entry.route().match().path() instanceof Route.PathMatch.Prefix p
          ? r.prefixRewrite().get() + path.substring(Math.min(p.prefix().length(), path.length()))
          : r.prefixRewrite().get();
    }
    String query = request.query();
    return scheme + "://" + hostPart + port + newPath + (r.stripQuery() || query.isEmpty() ? "" : "?" + query);
  }

  private static String host(String authority) {
    int colon = authority.lastIndexOf(':');
    return colon > 0 && authority.indexOf(']') < colon ? authority.substring(0, colon) : authority;
  }

  private static String port(String authority) {
    int colon = authority.lastIndexOf(':');
    return colon > 0 && authority.indexOf(']') < colon ? authority.substring(colon) : "";
  }
}
