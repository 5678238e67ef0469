package io.spillway.edge.filters.extauthz;

import io.spillway.edge.authz.AuthorizationClient;
import io.spillway.edge.config.ExtAuthzConfig;
import io.spillway.edge.config.Route.StringMatch;
import io.spillway.edge.http.filter.FilterChainBuilder;
import io.spillway.edge.http.filter.FilterContext;
import io.spillway.edge.http.filter.HttpFilterFactory;
import io.spillway.edge.stats.Counter;
import io.spillway.edge.stats.Scope;
import java.util.List;
import java.util.Set;

/**
 * The ext_authz HTTP filter's factory for one connection manager (Envoy's
 * {@code extensions/filters/http/ext_authz} {@code FilterConfig} with the HTTP {@code ClientConfig}
 * or the gRPC client): the parsed configuration, its header rules, the gRPC service's client and the
 * {@code http.<stat_prefix>.ext_authz.*} stats. Shared by every worker and immutable; each request
 * gets an {@link ExtAuthzFilter}, whose check is an {@link ExtAuthzCheck} (HTTP) or a {@link GrpcAuthzCheck}.
 *
 * <p>Header rules are Envoy's ({@code ext_authz_http_impl.cc}): the check request carries the
 * request's {@code host} and {@code authorization}, its method and path (with {@code path_prefix}),
 * {@code content-length: 0} and no body (with {@code with_request_body}: the buffered body), plus the
 * headers {@code allowed_headers} matches. A denied
 * answer's headers go to the client: all but {@code host} when {@code allowed_client_headers} is
 * empty, else the matched ones plus {@code content-length}, {@code www-authenticate} and
 * {@code location}.
 */
public final class ExtAuthzFactory implements HttpFilterFactory {

  /** Request headers every HTTP check carries, whatever allowed_headers says (method and path are the request line). */
  private static final Set<String> ALWAYS_SENT = Set.of("host", "authorization");
  /** Denied-response headers always passed to the client once allowed_client_headers is set. */
  private static final Set<String> ALWAYS_TO_CLIENT = Set.of("content-length", "www-authenticate", "location");

  private final ExtAuthzConfig config;
  private final FilterContext context;
  final Counter ok;
  final Counter denied;
  final Counter error;
  final Counter failureModeAllowed;
  /** Changes a gRPC service asked for that were skipped as malformed or not allowed. */
  final Counter invalid;
  /** {@code http.<stat_prefix>.downstream_rq_too_large}: a body past with_request_body's limit. */
  final Counter tooLarge;
  /** The gRPC service's client; null with an HTTP service. */
  private final AuthorizationClient grpcClient;

  /** Builds the filter's factory; with a gRPC service, gets its channel (control side). */
  public ExtAuthzFactory(ExtAuthzConfig config, FilterContext context) {
    this.config = config;
    this.context = context;
    this.grpcClient = config.service() == ExtAuthzConfig.Service.GRPC ? context.authorization().grpc(config) : null;
    Scope scope = context.httpScope().scope("ext_authz");
    if (!config.statPrefix().isEmpty()) {
      scope = scope.scope(config.statPrefix());
    }
    ok = scope.counter("ok");
    denied = scope.counter("denied");
    error = scope.counter("error");
    failureModeAllowed = scope.counter("failure_mode_allowed");
    invalid = scope.counter("invalid");
    tooLarge = context.httpScope().counter("downstream_rq_too_large");
  }

  AuthorizationClient grpcClient() {
    return grpcClient;
  }

  ExtAuthzConfig config() {
    return config;
  }

  FilterContext context() {
    return context;
  }

  @Override
  public String name() {
    return config.filterName();
  }

  @Override
  public void createFilters(FilterChainBuilder chain) {
    chain.addStreamFilter(new ExtAuthzFilter(this));
  }

  /**
   * Whether the check request carries this request header (lower-case name): over HTTP the
   * always-sent ones and those allowed_headers matches; over gRPC all, or those it matches when set.
   */
  boolean sendsRequestHeader(String name) {
    if (grpcClient != null) {
      return config.allowedHeaders().isEmpty() || anyMatch(config.allowedHeaders(), name);
    }
    return ALWAYS_SENT.contains(name) || anyMatch(config.allowedHeaders(), name);
  }

  /** Whether an OK answer's header is set on the upstream request. */
  boolean toUpstream(String name) {
    return anyMatch(config.allowedUpstreamHeaders(), name);
  }

  /** Whether a denied answer's header goes to the client. */
  boolean toClientOnDenied(String name) {
    if (config.allowedClientHeaders().isEmpty()) {
      return !name.equals("host");
    }
    return ALWAYS_TO_CLIENT.contains(name) || anyMatch(config.allowedClientHeaders(), name);
  }

  /** Whether an OK answer's header is added to the client's response. */
  boolean toClientOnSuccess(String name) {
    return anyMatch(config.allowedClientHeadersOnSuccess(), name);
  }

  private static boolean anyMatch(List<StringMatch> matchers, String name) {
    for (int i = 0; i < matchers.size(); i++) {
      if (matches(matchers.get(i), name)) {
        return true;
      }
    }
    return false;
  }

  /** Envoy's StringMatcher against a header name. */
  static boolean matches(StringMatch match, String value) {
    return switch (match) {
      case StringMatch.Exact e -> e.ignoreCase() ? value.equalsIgnoreCase(e.value()) : value.equals(e.value());
      case StringMatch.Prefix p -> value.regionMatches(p.ignoreCase(), 0, p.value(), 0, p.value().length());
      case StringMatch.Suffix s -> value.length() >= s.value().length()
          && value.regionMatches(s.ignoreCase(), value.length() - s.value().length(), s.value(), 0, s.value().length());
      case StringMatch.Contains c -> contains(value, c.value(), c.ignoreCase());
      case StringMatch.Regex r -> r.pattern().matcher(value).matches();
      case StringMatch.Present p -> p.present();
    };
  }

  private static boolean contains(String value, String part, boolean ignoreCase) {
    if (!ignoreCase) {
      return value.contains(part);
    }
    for (int i = 0; i <= value.length() - part.length(); i++) {
      if (value.regionMatches(true, i, part, 0, part.length())) {
        return true;
      }
    }
    return false;
  }
}
