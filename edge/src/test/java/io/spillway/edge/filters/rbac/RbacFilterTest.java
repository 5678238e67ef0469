package io.spillway.edge.filters.rbac;

import static org.assertj.core.api.Assertions.assertThat;

import io.netty.handler.codec.http.DefaultHttpHeadersFactory;
import io.netty.handler.codec.http.HttpHeaders;
import io.spillway.edge.config.HeaderMutations;
import io.spillway.edge.config.RbacConfig;
import io.spillway.edge.config.RbacConfig.Action;
import io.spillway.edge.config.RbacConfig.IpRange;
import io.spillway.edge.config.RbacConfig.Permission;
import io.spillway.edge.config.RbacConfig.Policy;
import io.spillway.edge.config.RbacConfig.Principal;
import io.spillway.edge.config.RbacConfig.Rules;
import io.spillway.edge.config.RetryPolicy;
import io.spillway.edge.config.Route;
import io.spillway.edge.config.Route.StringMatch;
import io.spillway.edge.http.filter.DecoderFilter;
import io.spillway.edge.http.filter.DownstreamTls;
import io.spillway.edge.http.filter.EncoderFilter;
import io.spillway.edge.http.filter.FilterChainBuilder;
import io.spillway.edge.http.filter.FilterHeadersStatus;
import io.spillway.edge.http.filter.RecordingStream;
import io.spillway.edge.http.filter.StreamInfo;
import io.spillway.edge.http.message.RequestHeaders;
import io.spillway.edge.router.RouteEntry;
import io.spillway.edge.stats.StatsStore;
import java.net.InetSocketAddress;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;

/**
 * The RBAC filter through fake stream callbacks: each permission and principal kind, and/or/not
 * trees, ALLOW, DENY and LOG, the first policy by name in the denial's details, shadow rules,
 * per-route rules and their absence, and Envoy's counters.
 */
class RbacFilterTest {

  private static final String NAME = "envoy.filters.http.rbac";
  private static final InetSocketAddress PEER = new InetSocketAddress("192.0.2.10", 40000);
  private static final InetSocketAddress LOCAL = new InetSocketAddress("10.0.0.5", 8443);

  private final StatsStore stats = new StatsStore();

  /** A request to {@code path} with these headers (name, value, ...). */
  private static RequestHeaders request(String method, String path, String... nameValues) {
    HttpHeaders h = DefaultHttpHeadersFactory.headersFactory().newHeaders();
    for (int i = 0; i < nameValues.length; i += 2) {
      h.add(nameValues[i], nameValues[i + 1]);
    }
    return new RequestHeaders(method, "http", "api.example", path, h);
  }

  private static RequestHeaders get(String path, String... nameValues) {
    return request("GET", path, nameValues);
  }

  private static Policy policy(String name, Permission permission, Principal principal) {
    return new Policy(name, List.of(permission), List.of(principal));
  }

  private static RbacConfig enforced(Action action, Policy... policies) {
    return new RbacConfig(Optional.of(new Rules(action, List.of(policies))), "", Optional.empty(), "");
  }

  private static IpRange range(String address, int len) throws Exception {
    return new IpRange(address, len, java.net.InetAddress.getByName(address).getAddress());
  }

  private static Route.HeaderMatch header(String name, StringMatch match) {
    return new Route.HeaderMatch(name, match, false);
  }

  private static final Permission ANY = new Permission.Any();
  private static final Principal ANYONE = new Principal.Any();

  private static RouteEntry route(Map<String, Object> filterConfigs) {
    Route route = new Route("r", new Route.Match(new Route.PathMatch.Prefix("/"), true, List.of(), List.of()),
        new Route.RouteAction(List.of(new Route.WeightedCluster("backend", 1)), Optional.empty(), Optional.empty(),
            Optional.empty(), false, Duration.ofSeconds(15), Optional.empty(), RetryPolicy.NONE),
        HeaderMutations.NONE, HeaderMutations.NONE, Map.of(), Set.of(), Map.of(), Route.RateLimits.NONE,
        Optional.empty());
    return new RouteEntry(route, "vh", List.of(), List.of(), RetryPolicy.NONE, new int[0], filterConfigs);
  }

  /** One request's outcome: what the filter answered and the reply it sent, if any. */
  private record Outcome(FilterHeadersStatus status, Fake callbacks) {
    boolean denied() {
      return callbacks.replyStatus == 403;
    }
  }

  private static final class Fake extends RecordingStream {
    Fake(RouteEntry route, RequestHeaders request, String peer) {
      super(route, request, new StreamInfo(0, peer, false));
      info.setDownstreamAddresses(new InetSocketAddress(peer, PEER.getPort()), LOCAL);
    }
  }

  private RbacFactory factory(RbacConfig config) {
    return new RbacFactory(NAME, config, stats.rootScope().scope("http").scope("ingress"));
  }

  private Outcome send(RbacFactory factory, RequestHeaders request) {
    return send(factory, null, request, PEER.getAddress().getHostAddress());
  }

  private Outcome send(RbacFactory factory, RouteEntry route, RequestHeaders request, String peer) {
    return send(factory, route, request, peer, null);
  }

  /** As the connection manager leaves the stream: {@code trustedClient} from x-forwarded-for, or null. */
  private Outcome send(RbacFactory factory, RouteEntry route, RequestHeaders request, String peer,
      String trustedClient) {
    RbacFilter[] made = new RbacFilter[1];
    factory.createFilters(new FilterChainBuilder() {
      @Override
      public void addDecoderFilter(DecoderFilter filter) {
        made[0] = (RbacFilter) filter;
      }

      @Override
      public void addEncoderFilter(EncoderFilter filter) {
        throw new AssertionError("the RBAC filter only decodes");
      }
    });
    Fake fake = new Fake(route, request, peer);
    if (trustedClient != null) {
      fake.info.setTrustedClient(trustedClient);
    }
    made[0].setDecoderFilterCallbacks(fake);
    FilterHeadersStatus status = made[0].decodeHeaders(request, true);
    assertThat(status == FilterHeadersStatus.STOP_ITERATION).isEqualTo(fake.replies == 1);
    return new Outcome(status, fake);
  }

  /** Whether ALLOW with one policy of this permission and principal lets the request through. */
  private boolean allows(Permission permission, Principal principal, RequestHeaders request) {
    return !send(factory(enforced(Action.ALLOW, policy("p", permission, principal))), request).denied();
  }

  private boolean permits(Permission permission, RequestHeaders request) {
    return allows(permission, ANYONE, request);
  }

  private boolean admits(Principal principal, RequestHeaders request) {
    return allows(ANY, principal, request);
  }

  private long counter(String name) {
    return stats.find(name).map(s -> ((io.spillway.edge.stats.Counter) s).value()).orElseThrow();
  }

  @Test
  void aDeniedRequestGetsEnvoysReplyDetailsAndCounter() {
    RbacFactory f = factory(enforced(Action.DENY, policy("block admin", new Permission.UrlPath(
        new StringMatch.Prefix("/admin", false)), ANYONE)));
    Outcome denied = send(f, get("/admin/users"));
    assertThat(denied.status()).isEqualTo(FilterHeadersStatus.STOP_ITERATION);
    assertThat(denied.callbacks().replyStatus).isEqualTo(403);
    assertThat(denied.callbacks().replyBody).isEqualTo("RBAC: access denied");
    assertThat(denied.callbacks().replyFlag).isNull();
    assertThat(denied.callbacks().info.responseCodeDetails())
        .isEqualTo("rbac_access_denied_matched_policy[block_admin]");
    Outcome allowed = send(f, get("/public"));
    assertThat(allowed.status()).isEqualTo(FilterHeadersStatus.CONTINUE);
    assertThat(counter("http.ingress.rbac.denied")).isEqualTo(1);
    assertThat(counter("http.ingress.rbac.allowed")).isEqualTo(1);
    assertThat(counter("http.ingress.rbac.shadow_allowed")).isZero();
  }

  @Test
  void allowLetsThroughOnlyWhatAPolicyMatchesAndNamesNoneOtherwise() {
    RbacFactory f = factory(enforced(Action.ALLOW,
        policy("readers", new Permission.Header(header(":method", new StringMatch.Exact("GET", false))), ANYONE)));
    assertThat(send(f, get("/x")).denied()).isFalse();
    Outcome post = send(f, request("POST", "/x"));
    assertThat(post.denied()).isTrue();
    assertThat(post.callbacks().info.responseCodeDetails()).isEqualTo("rbac_access_denied_matched_policy[none]");
    assertThat(send(factory(enforced(Action.ALLOW)), get("/x")).denied()).as("rules without policies deny all").isTrue();
    assertThat(send(factory(enforced(Action.DENY)), get("/x")).denied()).as("DENY without policies").isFalse();
  }

  @Test
  void theFirstMatchingPolicyByNameIsTheOneNamed() {
    RbacFactory f = factory(enforced(Action.DENY, policy("a-path", new Permission.UrlPath(
        new StringMatch.Prefix("/a", false)), ANYONE), policy("b-any", ANY, ANYONE)));
    assertThat(send(f, get("/a")).callbacks().info.responseCodeDetails())
        .isEqualTo("rbac_access_denied_matched_policy[a-path]");
    assertThat(send(f, get("/z")).callbacks().info.responseCodeDetails())
        .isEqualTo("rbac_access_denied_matched_policy[b-any]");
  }

  @Test
  void logNeverDeniesAndCountsAsAllowed() {
    RbacFactory f = factory(enforced(Action.LOG, policy("audit", ANY, ANYONE)));
    assertThat(send(f, get("/x")).status()).isEqualTo(FilterHeadersStatus.CONTINUE);
    assertThat(send(factory(enforced(Action.LOG)), get("/x")).status()).isEqualTo(FilterHeadersStatus.CONTINUE);
    assertThat(counter("http.ingress.rbac.allowed")).isEqualTo(2);
    assertThat(counter("http.ingress.rbac.denied")).isZero();
  }

  @Test
  void headerPermissionsUseTheRoutesMatchersAndInvert() {
    Permission json = new Permission.Header(header("content-type", new StringMatch.Suffix("json", false)));
    assertThat(permits(json, get("/", "content-type", "application/json"))).isTrue();
    assertThat(permits(json, get("/", "content-type", "text/plain"))).isFalse();
    assertThat(permits(json, get("/"))).as("absent").isFalse();
    Permission notJson = new Permission.Header(new Route.HeaderMatch("content-type",
        new StringMatch.Suffix("json", false), true));
    assertThat(permits(notJson, get("/", "content-type", "text/plain"))).isTrue();
    assertThat(permits(notJson, get("/", "content-type", "application/json"))).isFalse();
    Permission present = new Permission.Header(header("x-token", new StringMatch.Present(true)));
    assertThat(permits(present, get("/", "x-token", ""))).isTrue();
    assertThat(permits(present, get("/"))).isFalse();
    Permission regex = new Permission.Header(header("x-v", new StringMatch.Regex(Pattern.compile("v[0-9]+"))));
    assertThat(permits(regex, get("/", "x-v", "v12"))).isTrue();
    assertThat(permits(regex, get("/", "x-v", "v12a"))).as("a full match").isFalse();
    Permission pathHeader = new Permission.Header(header(":path", new StringMatch.Contains("debug=1", false)));
    assertThat(permits(pathHeader, get("/a?debug=1"))).as(":path includes the query").isTrue();
  }

  @Test
  void urlPathMatchesThePathWithoutQueryOrFragment() {
    Permission exact = new Permission.UrlPath(new StringMatch.Exact("/api/items", false));
    assertThat(permits(exact, get("/api/items?limit=5"))).isTrue();
    assertThat(permits(exact, get("/api/items#top"))).isTrue();
    assertThat(permits(exact, get("/api/items/1"))).isFalse();
    Permission ignoreCase = new Permission.UrlPath(new StringMatch.Exact("/API/ITEMS", true));
    assertThat(permits(ignoreCase, get("/api/Items"))).isTrue();
    assertThat(admits(new Principal.UrlPath(new StringMatch.Suffix("/me", false)), get("/users/me?x=1"))).isTrue();
  }

  @Test
  void destinationIpAndPortsAreTheAddressTheClientConnectedTo() throws Exception {
    assertThat(permits(new Permission.DestinationIp(range("10.0.0.0", 8)), get("/"))).isTrue();
    assertThat(permits(new Permission.DestinationIp(range("10.0.1.0", 24)), get("/"))).isFalse();
    assertThat(permits(new Permission.DestinationIp(range("::", 0)), get("/"))).as("another family").isFalse();
    assertThat(permits(new Permission.DestinationPort(8443), get("/"))).isTrue();
    assertThat(permits(new Permission.DestinationPort(443), get("/"))).isFalse();
    assertThat(permits(new Permission.DestinationPortRange(8000, 8444), get("/"))).isTrue();
    assertThat(permits(new Permission.DestinationPortRange(8000, 8443), get("/"))).as("end is exclusive").isFalse();
  }

  @Test
  void andOrAndNotTreesOfPermissions() {
    Permission get = new Permission.Header(header(":method", new StringMatch.Exact("GET", false)));
    Permission products = new Permission.UrlPath(new StringMatch.Prefix("/products", false));
    Permission tree = new Permission.And(List.of(get, new Permission.Or(List.of(products,
        new Permission.UrlPath(new StringMatch.Prefix("/catalog", false)))),
        new Permission.Not(new Permission.DestinationPort(80))));
    assertThat(permits(tree, get("/products/1"))).isTrue();
    assertThat(permits(tree, get("/catalog"))).isTrue();
    assertThat(permits(tree, request("DELETE", "/products/1"))).isFalse();
    assertThat(permits(tree, get("/orders"))).isFalse();
    assertThat(permits(new Permission.Not(tree), get("/orders"))).isTrue();
  }

  @Test
  void remoteAddressPrincipals() throws Exception {
    assertThat(admits(new Principal.DirectRemoteIp(range("192.0.2.0", 24)), get("/"))).isTrue();
    assertThat(admits(new Principal.DirectRemoteIp(range("198.51.100.0", 24)), get("/"))).isFalse();
    assertThat(admits(new Principal.SourceIp(range("192.0.2.10", 32)), get("/"))).isTrue();
    assertThat(admits(new Principal.RemoteIp(range("192.0.2.10", 32)), get("/"))).as("no XFF: the peer").isTrue();
  }

  @Test
  void remoteIpIsTheClientTheConnectionManagerTrustsAndDirectRemoteIpStaysThePeer() throws Exception {
    RbacConfig remote = enforced(Action.ALLOW, policy("p", ANY, new Principal.RemoteIp(range("203.0.113.0", 24))));
    RbacConfig direct = enforced(Action.ALLOW, policy("p", ANY,
        new Principal.DirectRemoteIp(range("203.0.113.0", 24))));
    RbacConfig source = enforced(Action.ALLOW, policy("p", ANY, new Principal.SourceIp(range("203.0.113.0", 24))));
    RequestHeaders forwarded = get("/", "x-forwarded-for", "203.0.113.7");
    assertThat(send(factory(remote), null, forwarded, "192.0.2.10", "203.0.113.7").denied()).isFalse();
    assertThat(send(factory(remote), null, forwarded, "192.0.2.10", null).denied())
        .as("no trusted hop: the peer, whatever the header says").isTrue();
    assertThat(send(factory(direct), null, forwarded, "192.0.2.10", "203.0.113.7").denied()).isTrue();
    assertThat(send(factory(source), null, forwarded, "192.0.2.10", "203.0.113.7").denied()).isTrue();
    assertThat(send(factory(direct), null, forwarded, "203.0.113.9", null).denied()).isFalse();
  }

  @Test
  void headerPrincipalsAndTreesOfPrincipals() throws Exception {
    Principal admin = new Principal.Header(header("x-role", new StringMatch.Exact("admin", false)));
    Principal internal = new Principal.DirectRemoteIp(range("192.0.2.0", 24));
    Principal both = new Principal.And(List.of(admin, internal));
    assertThat(admits(both, get("/", "x-role", "admin"))).isTrue();
    assertThat(admits(both, get("/", "x-role", "user"))).isFalse();
    Principal either = new Principal.Or(List.of(admin, new Principal.Not(internal)));
    assertThat(admits(either, get("/", "x-role", "user"))).isFalse();
    assertThat(admits(either, get("/", "x-role", "admin"))).isTrue();
  }

  @Test
  void authenticatedNeedsTlsAndMatchesAUriSanADnsSanOrTheSubject() {
    DownstreamTls cert = new DownstreamTls(List.of("spiffe://mesh/ns/a/sa/web"), List.of("web.mesh.local"),
        "CN=web,O=Mesh");
    DownstreamTls noCert = new DownstreamTls(List.of(), List.of(), "");
    Principal anyTls = new Principal.Authenticated(Optional.empty());
    assertThat(admitsOver(anyTls, null)).as("not TLS").isFalse();
    assertThat(admitsOver(anyTls, noCert)).as("TLS, no certificate, no name asked").isTrue();
    assertThat(admitsOver(named(new StringMatch.Exact("spiffe://mesh/ns/a/sa/web", false)), cert)).isTrue();
    assertThat(admitsOver(named(new StringMatch.Suffix(".mesh.local", false)), cert)).as("a DNS SAN").isTrue();
    assertThat(admitsOver(named(new StringMatch.Exact("CN=web,O=Mesh", false)), cert)).as("the subject").isTrue();
    assertThat(admitsOver(named(new StringMatch.Prefix("spiffe://other/", false)), cert)).isFalse();
    assertThat(admitsOver(named(new StringMatch.Prefix("spiffe://", false)), noCert)).isFalse();
  }

  private static Principal named(StringMatch name) {
    return new Principal.Authenticated(Optional.of(name));
  }

  private boolean admitsOver(Principal principal, DownstreamTls tls) {
    RbacFactory f = factory(enforced(Action.ALLOW, policy("p", ANY, principal)));
    RbacFilter[] made = new RbacFilter[1];
    f.createFilters(new FilterChainBuilder() {
      @Override
      public void addDecoderFilter(DecoderFilter filter) {
        made[0] = (RbacFilter) filter;
      }

      @Override
      public void addEncoderFilter(EncoderFilter filter) {
        throw new AssertionError("the RBAC filter only decodes");
      }
    });
    Fake fake = new Fake(null, get("/"), "192.0.2.10");
    fake.info.setDownstreamTls(() -> tls);
    made[0].setDecoderFilterCallbacks(fake);
    made[0].decodeHeaders(fake.request, true);
    return fake.replies == 0;
  }

  @Test
  void aPolicyNeedsAPermissionAndAPrincipal() {
    Policy p = new Policy("p", List.of(new Permission.UrlPath(new StringMatch.Exact("/a", false)), ANY),
        List.of(new Principal.Header(header("x-user", new StringMatch.Present(true)))));
    RbacFactory f = factory(enforced(Action.ALLOW, p));
    assertThat(send(f, get("/b", "x-user", "u")).denied()).as("one permission of several suffices").isFalse();
    assertThat(send(f, get("/a")).denied()).as("no principal matched").isTrue();
  }

  @Test
  void shadowRulesCountAndNeverDeny() {
    RbacConfig config = new RbacConfig(Optional.empty(), "", Optional.of(new Rules(Action.ALLOW, List.of(
        policy("internal", new Permission.UrlPath(new StringMatch.Prefix("/internal", false)), ANYONE)))), "");
    RbacFactory f = factory(config);
    assertThat(send(f, get("/public")).denied()).isFalse();
    assertThat(send(f, get("/internal")).denied()).isFalse();
    assertThat(counter("http.ingress.rbac.shadow_denied")).isEqualTo(1);
    assertThat(counter("http.ingress.rbac.shadow_allowed")).isEqualTo(1);
    assertThat(counter("http.ingress.rbac.allowed")).as("nothing enforced").isZero();
    assertThat(counter("http.ingress.rbac.denied")).isZero();
  }

  @Test
  void shadowAndEnforcedRulesBothRunWithTheirOwnStatPrefixes() {
    RbacConfig config = new RbacConfig(
        Optional.of(new Rules(Action.DENY, List.of(policy("none", new Permission.Not(ANY), ANYONE)))), "enforced_",
        Optional.of(new Rules(Action.DENY, List.of(policy("all", ANY, ANYONE)))), "trial.");
    RbacFactory f = factory(config);
    assertThat(send(f, get("/")).denied()).isFalse();
    assertThat(counter("http.ingress.rbac.enforced_allowed")).isEqualTo(1);
    assertThat(counter("http.ingress.rbac.enforced_denied")).isZero();
    assertThat(counter("http.ingress.rbac.trial.shadow_denied")).isEqualTo(1);
    assertThat(counter("http.ingress.rbac.trial.shadow_allowed")).isZero();
  }

  @Test
  void aRoutesRulesReplaceTheFiltersAndEmptyOnesCheckNothing() {
    RbacFactory f = factory(enforced(Action.DENY, policy("all", ANY, ANYONE)));
    assertThat(send(f, route(Map.of()), get("/"), "192.0.2.10").denied()).as("the filter's rules").isTrue();
    RouteEntry open = route(Map.of(NAME, new RbacConfig(Optional.empty(), "", Optional.empty(), "")));
    assertThat(send(f, open, get("/"), "192.0.2.10").denied()).as("RBACPerRoute without rbac").isFalse();
    RouteEntry own = route(Map.of(NAME, enforced(Action.ALLOW, policy("get-only",
        new Permission.Header(header(":method", new StringMatch.Exact("GET", false))), ANYONE))));
    assertThat(send(f, own, get("/"), "192.0.2.10").denied()).isFalse();
    Outcome post = send(f, own, request("POST", "/"), "192.0.2.10");
    assertThat(post.denied()).isTrue();
    assertThat(post.callbacks().info.responseCodeDetails()).isEqualTo("rbac_access_denied_matched_policy[none]");
    assertThat(counter("http.ingress.rbac.denied")).as("a route's rules count in the filter's counters").isEqualTo(2);
    assertThat(counter("http.ingress.rbac.allowed")).isEqualTo(1);
  }
}
