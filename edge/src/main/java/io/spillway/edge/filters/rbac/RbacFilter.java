package io.spillway.edge.filters.rbac;

import io.spillway.edge.config.RbacConfig;
import io.spillway.edge.config.RbacConfig.Permission;
import io.spillway.edge.config.RbacConfig.Policy;
import io.spillway.edge.config.RbacConfig.Principal;
import io.spillway.edge.config.RbacConfig.Rules;
import io.spillway.edge.config.Route;
import io.spillway.edge.http.filter.DecoderFilter;
import io.spillway.edge.http.filter.DecoderFilterCallbacks;
import io.spillway.edge.http.filter.DownstreamTls;
import io.spillway.edge.http.filter.FilterHeadersStatus;
import io.spillway.edge.http.message.RequestHeaders;
import io.spillway.edge.router.RouteMatcher;
import java.net.InetSocketAddress;
import java.util.List;

/**
 * One request's access check (Envoy's {@code RoleBasedAccessControlFilter}), on its headers: the
 * shadow rules first, which only count, then the enforced rules. A policy matches when one of its
 * permissions (what the request does) and one of its principals (who sends it) match; the first
 * matching policy by name is the effective one. {@code ALLOW} lets the request through iff a
 * policy matches, {@code DENY} iff none does, {@code LOG} always (it only counts: Envoy's
 * {@code access_log_hint} dynamic metadata is not set). A denied request gets
 * Envoy's local reply: 403 {@code RBAC: access denied}, response code details
 * {@code rbac_access_denied_matched_policy[<policy>]} ({@code none} when no policy matched).
 *
 * <p>Everything is compiled in the config; per request the filter only reads headers, the
 * connection's addresses (each parsed at most once, only when a rule asks for it) and the client
 * certificate's names, which the connection reads once after its TLS handshake.
 */
final class RbacFilter implements DecoderFilter {
  static final String BODY = "RBAC: access denied";
  static final String DETAILS_PREFIX = "rbac_access_denied_matched_policy[";
  private static final byte[] UNKNOWN = new byte[0];

  private final RbacFactory factory;
  private DecoderFilterCallbacks decoder;
  private RequestHeaders headers;
  private byte[] directRemote;
  private byte[] remote;
  private byte[] local;

  RbacFilter(RbacFactory factory) {
    this.factory = factory;
  }

  @Override
  public void setDecoderFilterCallbacks(DecoderFilterCallbacks callbacks) {
    this.decoder = callbacks;
  }

  @Override
  public FilterHeadersStatus decodeHeaders(RequestHeaders headers, boolean endStream) {
    RbacConfig config = factory.configFor(decoder.route());
    this.headers = headers;
    if (config.shadowRules().isPresent()) {
      Rules shadow = config.shadowRules().get();
      if (allows(shadow, firstMatch(shadow))) {
        factory.shadowAllowed.inc();
      } else {
        factory.shadowDenied.inc();
      }
    }
    if (config.rules().isEmpty()) {
      return FilterHeadersStatus.CONTINUE;
    }
    Rules rules = config.rules().get();
    Policy matched = firstMatch(rules);
    if (allows(rules, matched)) {
      factory.allowed.inc();
      return FilterHeadersStatus.CONTINUE;
    }
    factory.denied.inc();
    decoder.streamInfo().setResponseCodeDetails(details(matched));
    decoder.sendLocalReply(403, BODY, null);
    return FilterHeadersStatus.STOP_ITERATION;
  }

  private static boolean allows(Rules rules, Policy matched) {
    return switch (rules.action()) {
      case ALLOW -> matched != null;
      case DENY -> matched == null;
      case LOG -> true;
    };
  }

  /** Envoy's response code details of a denial; whitespace in the policy's name becomes '_'. */
  static String details(Policy matched) {
    String name = matched == null ? "none" : matched.name();
    StringBuilder sb = new StringBuilder(DETAILS_PREFIX.length() + name.length() + 1).append(DETAILS_PREFIX);
    for (int i = 0; i < name.length(); i++) {
      char c = name.charAt(i);
      sb.append(Character.isWhitespace(c) ? '_' : c);
    }
    return sb.append(']').toString();
  }

  /** The first policy, in name order, whose permissions and principals both match; or null. */
  private Policy firstMatch(Rules rules) {
    List<Policy> policies = rules.policies();
    for (int i = 0; i < policies.size(); i++) {
      Policy p = policies.get(i);
      if (anyPermission(p.permissions()) && anyPrincipal(p.principals())) {
        return p;
      }
    }
    return null;
  }

  private boolean anyPermission(List<Permission> permissions) {
    for (int i = 0; i < permissions.size(); i++) {
      if (matches(permissions.get(i))) {
        return true;
      }
    }
    return false;
  }

  private boolean allPermissions(List<Permission> permissions) {
    for (int i = 0; i < permissions.size(); i++) {
      if (!matches(permissions.get(i))) {
        return false;
      }
    }
    return true;
  }

  private boolean anyPrincipal(List<Principal> principals) {
    for (int i = 0; i < principals.size(); i++) {
      if (matches(principals.get(i))) {
        return true;
      }
    }
    return false;
  }

  private boolean allPrincipals(List<Principal> principals) {
    for (int i = 0; i < principals.size(); i++) {
      if (!matches(principals.get(i))) {
        return false;
      }
    }
    return true;
  }

  private boolean matches(Permission p) {
    return switch (p) {
      case Permission.Any a -> true;
      case Permission.And a -> allPermissions(a.rules());
      case Permission.Or o -> anyPermission(o.rules());
      case Permission.Not n -> !matches(n.rule());
      case Permission.Header h -> RouteMatcher.headerMatches(h.match(), headers);
      case Permission.UrlPath u -> urlPathMatches(u.match());
      case Permission.DestinationIp d -> d.range().contains(local());
      case Permission.DestinationPort d -> localPort() == d.port();
      case Permission.DestinationPortRange r -> {
        int port = localPort();
        yield port >= r.start() && port < r.end();
      }
    };
  }

  private boolean matches(Principal p) {
    return switch (p) {
      case Principal.Any a -> true;
      case Principal.And a -> allPrincipals(a.ids());
      case Principal.Or o -> anyPrincipal(o.ids());
      case Principal.Not n -> !matches(n.id());
      case Principal.Header h -> RouteMatcher.headerMatches(h.match(), headers);
      case Principal.UrlPath u -> urlPathMatches(u.match());
      case Principal.DirectRemoteIp d -> d.range().contains(directRemote());
      case Principal.SourceIp s -> s.range().contains(directRemote());
      case Principal.RemoteIp r -> r.range().contains(remote());
      case Principal.Authenticated a -> authenticated(a);
    };
  }

  /**
   * Envoy's {@code authenticated}: never without TLS; any TLS client without a principal name;
   * else a URI SAN, a DNS SAN or the subject (RFC 2253) of the client certificate must match.
   */
  private boolean authenticated(Principal.Authenticated a) {
    DownstreamTls tls = decoder.streamInfo().downstreamTls();
    if (tls == null) {
      return false;
    }
    if (a.principalName().isEmpty()) {
      return true;
    }
    Route.StringMatch name = a.principalName().get();
    List<String> uris = tls.uriSans();
    for (int i = 0; i < uris.size(); i++) {
      if (RouteMatcher.matches(name, uris.get(i))) {
        return true;
      }
    }
    List<String> dns = tls.dnsSans();
    for (int i = 0; i < dns.size(); i++) {
      if (RouteMatcher.matches(name, dns.get(i))) {
        return true;
      }
    }
    return RouteMatcher.matches(name, tls.subject());
  }

  /** Envoy's {@code url_path}: the path without query and fragment; a request without one never matches. */
  private boolean urlPathMatches(Route.StringMatch match) {
    String path = headers.path();
    if (path == null || path.isEmpty()) {
      return false;
    }
    int fragment = path.indexOf('#');
    return RouteMatcher.matches(match, fragment < 0 ? path : path.substring(0, fragment));
  }

  /** The physical peer's address bytes, or null when the connection did not say. */
  private byte[] directRemote() {
    if (directRemote == null) {
      directRemote = bytes(decoder.streamInfo().downstreamDirectRemote());
    }
    return directRemote == UNKNOWN ? null : directRemote;
  }

  /**
   * The client address the connection manager settled by its x-forwarded-for rules (Envoy's
   * remote address: the peer unless a trusted hop named another), or null.
   */
  private byte[] remote() {
    if (remote == null) {
      remote = bytes(decoder.streamInfo().downstreamRemote());
    }
    return remote == UNKNOWN ? null : remote;
  }

  private static byte[] bytes(InetSocketAddress address) {
    return address == null || address.getAddress() == null ? UNKNOWN : address.getAddress().getAddress();
  }

  private byte[] local() {
    if (local == null) {
      local = bytes(decoder.streamInfo().downstreamLocal());
    }
    return local == UNKNOWN ? null : local;
  }

  /** The port the client connected to, or -1 when the connection did not say. */
  private int localPort() {
    InetSocketAddress address = decoder.streamInfo().downstreamLocal();
    return address == null ? -1 : address.getPort();
  }
}
