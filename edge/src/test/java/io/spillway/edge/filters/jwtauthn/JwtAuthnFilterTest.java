package io.spillway.edge.filters.jwtauthn;

import static org.assertj.core.api.Assertions.assertThat;

import com.nimbusds.jose.JWSAlgorithm;
import com.nimbusds.jose.JWSHeader;
import com.nimbusds.jose.JWSSigner;
import com.nimbusds.jose.crypto.ECDSASigner;
import com.nimbusds.jose.crypto.MACSigner;
import com.nimbusds.jose.crypto.RSASSASigner;
import com.nimbusds.jose.jwk.Curve;
import com.nimbusds.jose.jwk.ECKey;
import com.nimbusds.jose.jwk.JWK;
import com.nimbusds.jose.jwk.JWKSet;
import com.nimbusds.jose.jwk.OctetSequenceKey;
import com.nimbusds.jose.jwk.RSAKey;
import com.nimbusds.jose.jwk.gen.ECKeyGenerator;
import com.nimbusds.jose.jwk.gen.OctetSequenceKeyGenerator;
import com.nimbusds.jose.jwk.gen.RSAKeyGenerator;
import com.nimbusds.jwt.JWTClaimsSet;
import com.nimbusds.jwt.SignedJWT;
import io.netty.handler.codec.http.DefaultHttpHeaders;
import io.spillway.edge.config.HeaderMutations;
import io.spillway.edge.config.JwtAuthnConfig;
import io.spillway.edge.config.JwtAuthnConfig.Requirement;
import io.spillway.edge.config.RetryPolicy;
import io.spillway.edge.config.Route;
import io.spillway.edge.http.filter.FilterHeadersStatus;
import io.spillway.edge.http.message.RequestHeaders;
import io.spillway.edge.router.RouteEntry;
import io.spillway.edge.runtime.RuntimeSnapshot;
import io.spillway.edge.stats.Counter;
import io.spillway.edge.stats.StatsStore;
import java.time.Duration;
import java.util.Base64;
import java.util.Date;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import org.junit.jupiter.api.Test;

/**
 * The jwt_authn filter through fake stream callbacks, with tokens signed here with Nimbus: each
 * algorithm family, the time checks with the clock skew, issuer, audience, signature and key
 * choice, the requirement forms, per-route configs, and Envoy's replies and stats.
 */
class JwtAuthnFilterTest {
  private static final String NAME = "envoy.filters.http.jwt_authn";
  private static final long NOW = 1_800_000_000L;
  private static final String ISSUER = "https://issuer.example";
  private static final String OTHER_ISSUER = "https://other.example";

  private static final RSAKey RSA = generate(() -> new RSAKeyGenerator(2048).keyID("rsa-1").generate());
  private static final RSAKey RSA_STRANGER = generate(() -> new RSAKeyGenerator(2048).keyID("rsa-1").generate());
  private static final RSAKey RSA_OTHER = generate(() -> new RSAKeyGenerator(2048).keyID("other").generate());
  private static final ECKey EC = generate(() -> new ECKeyGenerator(Curve.P_256).keyID("ec-1").generate());
  private static final OctetSequenceKey HMAC = generate(() -> new OctetSequenceKeyGenerator(256).keyID("hmac").generate());

  private final StatsStore stats = new StatsStore();

  private interface KeySupplier<T> {
    T get() throws Exception;
  }

  private static <T> T generate(KeySupplier<T> s) {
    try {
      return s.get();
    } catch (Exception e) {
      throw new AssertionError(e);
    }
  }

  private static JwtAuthnConfig.Provider p1() {
    return new JwtAuthnConfig.Provider("p1", ISSUER, List.of("api"),
        new JwtAuthnConfig.LocalKeys(new JWKSet(List.<JWK>of(RSA.toPublicJWK(), EC.toPublicJWK(), HMAC))), List.of(),
        List.of(), List.of(), false,
        "x-jwt-payload", false, List.of(new JwtAuthnConfig.ClaimToHeader("x-sub", "sub"),
            new JwtAuthnConfig.ClaimToHeader("x-tenant", "org.tenant")), 60, Optional.empty(), false);
  }

  private static JwtAuthnConfig.Provider p2() {
    return new JwtAuthnConfig.Provider("p2", OTHER_ISSUER, List.of(),
        new JwtAuthnConfig.LocalKeys(new JWKSet(RSA_OTHER.toPublicJWK())),
        List.of(new JwtAuthnConfig.TokenHeader("x-other", "")), List.of(), List.of(), true, "", false, List.of(), 60,
        Optional.empty(), false);
  }

  private JwtAuthnFactory factory(Requirement requirement, JwtAuthnConfig.Provider... providers) {
    return factory(requirement, false, providers);
  }

  private JwtAuthnFactory factory(Requirement requirement, boolean bypassCors, JwtAuthnConfig.Provider... providers) {
    Map<String, JwtAuthnConfig.Provider> map = new java.util.TreeMap<>();
    for (JwtAuthnConfig.Provider p : providers) {
      map.put(p.name(), p);
    }
    Map<String, Requirement> named = new java.util.TreeMap<>();
    named.put("soft", new JwtAuthnConfig.AllowMissingOrFailed());
    if (map.containsKey("p2")) {
      named.put("p2", P2);
    }
    JwtAuthnConfig config = new JwtAuthnConfig(map,
        List.of(new JwtAuthnConfig.Rule(match("/"), Optional.ofNullable(requirement))), named, bypassCors, false, "");
    return new JwtAuthnFactory(NAME, config, stats.rootScope().scope("http").scope("ingress"),
        () -> RuntimeSnapshot.EMPTY);
  }

  private static Route.Match match(String prefix) {
    return new Route.Match(new Route.PathMatch.Prefix(prefix), true, List.of(), List.of());
  }

  private static JWTClaimsSet.Builder claims() {
    return new JWTClaimsSet.Builder().issuer(ISSUER).subject("alice").audience("api")
        .expirationTime(new Date((NOW + 600) * 1000)).claim("org", Map.of("tenant", "t-7"));
  }

  private static String sign(JWSAlgorithm alg, String kid, JWSSigner signer, JWTClaimsSet claims) {
    try {
      SignedJWT jwt = new SignedJWT(new JWSHeader.Builder(alg).keyID(kid).build(), claims);
      jwt.sign(signer);
      return jwt.serialize();
    } catch (Exception e) {
      throw new AssertionError(e);
    }
  }

  private static String rs256(JWTClaimsSet claims) {
    return sign(JWSAlgorithm.RS256, "rsa-1", generate(() -> new RSASSASigner(RSA)), claims);
  }

  private static RequestHeaders request(String... headerPairs) {
    DefaultHttpHeaders h = new DefaultHttpHeaders();
    for (int i = 0; i < headerPairs.length; i += 2) {
      h.add(headerPairs[i], headerPairs[i + 1]);
    }
    return new RequestHeaders("GET", "http", "api.example", "/path?q=1", h);
  }

  private static RequestHeaders bearer(String token) {
    return request("authorization", "Bearer " + token);
  }

  private record Outcome(FilterHeadersStatus status, FakeCallbacks callbacks) {
    boolean passed() {
      return status == FilterHeadersStatus.CONTINUE && callbacks.replies == 0;
    }
  }

  private Outcome send(JwtAuthnFactory factory, RouteEntry route, RequestHeaders request) {
    FakeCallbacks callbacks = new FakeCallbacks(route, request, NOW);
    JwtAuthnFilter filter = new JwtAuthnFilter(factory);
    filter.setDecoderFilterCallbacks(callbacks);
    return new Outcome(filter.decodeHeaders(request, true), callbacks);
  }

  private Outcome send(Requirement requirement, RequestHeaders request) {
    return send(factory(requirement, p1(), p2()), null, request);
  }

  private static final Requirement P1 = new JwtAuthnConfig.ProviderRequirement("p1", List.of());
  private static final Requirement P2 = new JwtAuthnConfig.ProviderRequirement("p2", List.of());

  private long counter(String name) {
    return stats.find(name).map(s -> ((Counter) s).value()).orElse(0L);
  }

  /** Asserts a refusal with Envoy's status, body, challenge and details. */
  private static void assertRefused(Outcome o, int status, String body, boolean invalidToken) {
    assertThat(o.status()).isEqualTo(FilterHeadersStatus.STOP_ITERATION);
    assertThat(o.callbacks().replies).isEqualTo(1);
    assertThat(o.callbacks().replyStatus).isEqualTo(status);
    assertThat(o.callbacks().replyBody).isEqualTo(body);
    assertThat(o.callbacks().replyHeaders.get("www-authenticate")).isEqualTo("Bearer realm=\"http://api.example/path?q=1\""
        + (invalidToken ? ", error=\"invalid_token\"" : ""));
    assertThat(o.callbacks().info.responseCodeDetails()).isEqualTo("jwt_authn_access_denied{" + body.replace(' ', '_') + "}");
  }

  @Test
  void aValidRs256TokenPassesWithItsPayloadAndClaimsForwardedAndTheTokenStripped() {
    String token = rs256(claims().build());
    RequestHeaders request = bearer(token);
    Outcome o = send(P1, request);
    assertThat(o.passed()).isTrue();
    String payload = token.split("\\.")[1];
    assertThat(request.header("x-jwt-payload")).isEqualTo(payload);
    assertThat(new String(Base64.getUrlDecoder().decode(request.header("x-jwt-payload")))).contains("\"sub\":\"alice\"");
    assertThat(request.header("x-sub")).isEqualTo("alice");
    assertThat(request.header("x-tenant")).isEqualTo("t-7");
    assertThat(request.header("authorization")).as("forward: false strips the token header").isNull();
    assertThat(counter("http.ingress.jwt_authn.allowed")).isEqualTo(1);
    assertThat(counter("http.ingress.jwt_authn.denied")).isZero();
  }

  @Test
  void everyAlgorithmFamilyVerifies() {
    JWTClaimsSet c = claims().build();
    assertThat(send(P1, bearer(sign(JWSAlgorithm.ES256, "ec-1", generate(() -> new ECDSASigner(EC)), c))).passed())
        .isTrue();
    assertThat(send(P1, bearer(sign(JWSAlgorithm.PS256, "rsa-1", generate(() -> new RSASSASigner(RSA)), c))).passed())
        .isTrue();
    assertThat(send(P1, bearer(sign(JWSAlgorithm.RS512, "rsa-1", generate(() -> new RSASSASigner(RSA)), c))).passed())
        .isTrue();
    assertThat(send(P1, bearer(sign(JWSAlgorithm.HS256, "hmac", generate(() -> new MACSigner(HMAC)), c))).passed())
        .isTrue();
    // A token without kid: every key of a fitting type is tried.
    assertThat(send(P1, bearer(sign(JWSAlgorithm.ES256, null, generate(() -> new ECDSASigner(EC)), c))).passed())
        .isTrue();
  }

  @Test
  void paddedPayloadHeaderWhenAsked() {
    JwtAuthnConfig.Provider p = p1();
    JwtAuthnConfig.Provider padded = new JwtAuthnConfig.Provider(p.name(), p.issuer(), p.audiences(), p.keys(),
        p.fromHeaders(), p.fromParams(), p.fromCookies(), true, p.forwardPayloadHeader(), true, List.of(), 60,
        Optional.empty(), false);
    String token = rs256(claims().build());
    RequestHeaders request = bearer(token);
    assertThat(send(factory(P1, padded), null, request).passed()).isTrue();
    assertThat(request.header("x-jwt-payload").length() % 4).isZero();
    assertThat(request.header("authorization")).as("forward: true keeps it").isEqualTo("Bearer " + token);
  }

  @Test
  void expiryAndNotBeforeAllowTheClockSkew() {
    assertThat(send(P1, bearer(rs256(claims().expirationTime(new Date((NOW - 59) * 1000)).build()))).passed()).isTrue();
    assertRefused(send(P1, bearer(rs256(claims().expirationTime(new Date((NOW - 61) * 1000)).build()))), 401,
        "Jwt is expired", true);
    assertThat(send(P1, bearer(rs256(claims().notBeforeTime(new Date((NOW + 30) * 1000)).build()))).passed()).isTrue();
    assertRefused(send(P1, bearer(rs256(claims().notBeforeTime(new Date((NOW + 61) * 1000)).build()))), 401,
        "Jwt not yet valid", true);
    assertThat(counter("http.ingress.jwt_authn.denied")).isEqualTo(2);
  }

  @Test
  void requireExpirationAndMaxLifetime() {
    JwtAuthnConfig.Provider p = p1();
    JwtAuthnConfig.Provider strict = new JwtAuthnConfig.Provider(p.name(), p.issuer(), p.audiences(), p.keys(),
        List.of(), List.of(), List.of(), false, "", false, List.of(), 60, Optional.of(Duration.ofHours(1)), true);
    JwtAuthnFactory f = factory(P1, strict);
    assertThat(send(f, null, bearer(rs256(claims().build()))).passed()).isTrue();
    assertRefused(send(f, null, bearer(rs256(claims().expirationTime(null).build()))), 401, "Jwt is expired", true);
    assertRefused(send(f, null, bearer(rs256(claims().expirationTime(new Date((NOW + 7200) * 1000)).build()))), 401,
        "Jwt is expired", true);
    assertThat(send(P1, bearer(rs256(claims().expirationTime(null).build()))).passed())
        .as("without require_expiration a token without exp is fine").isTrue();
  }

  @Test
  void issuerAudienceSignatureAndKeyChoice() {
    assertRefused(send(P1, bearer(rs256(claims().issuer("https://evil.example").build()))), 401,
        "Jwt issuer is not configured", true);
    assertRefused(send(P1, bearer(rs256(claims().audience("somebody-else").build()))), 403,
        "Audiences in Jwt are not allowed", true);
    assertThat(send(P1, bearer(rs256(claims().audience(List.of("x", "https://api/")).build()))).passed())
        .as("audiences compare without scheme and trailing slash").isTrue();
    assertRefused(send(P1, bearer(sign(JWSAlgorithm.RS256, "rsa-1", generate(() -> new RSASSASigner(RSA_STRANGER)),
        claims().build()))), 401, "Jwt verification fails", true);
    assertRefused(send(P1, bearer(sign(JWSAlgorithm.RS256, "nobody", generate(() -> new RSASSASigner(RSA)),
        claims().build()))), 401, "Jwks doesn't have key to match kid or alg from Jwt", true);
    assertRefused(send(P1, bearer("not-a-jwt")), 401,
        "Jwt is not in the form of Header.Payload.Signature with two dots and 3 sections", true);
    String token = rs256(claims().build());
    String[] parts = token.split("\\.");
    String tampered = parts[0] + "." + Base64.getUrlEncoder().withoutPadding().encodeToString(
        "{\"iss\":\"https://issuer.example\",\"aud\":\"api\",\"sub\":\"mallory\"}".getBytes()) + "." + parts[2];
    assertRefused(send(P1, bearer(tampered)), 401, "Jwt verification fails", true);
  }

  @Test
  void aMissingTokenIsRefusedWithoutTheInvalidTokenError() {
    assertRefused(send(P1, request()), 401, "Jwt is missing", false);
    assertRefused(send(P1, request("authorization", "Basic dXNlcjpwYXNz")), 401, "Jwt is missing", false);
  }

  @Test
  void theAccessTokenParameterIsADefaultLocation() {
    String token = rs256(claims().build());
    RequestHeaders r = new RequestHeaders("GET", "http", "api.example", "/path?access_token=" + token,
        new DefaultHttpHeaders());
    assertThat(send(P1, r).passed()).isTrue();
  }

  @Test
  void requiresAnyAndRequiresAll() {
    String p2Token = sign(JWSAlgorithm.RS256, "other", generate(() -> new RSASSASigner(RSA_OTHER)),
        claims().issuer(OTHER_ISSUER).build());
    Requirement any = new JwtAuthnConfig.RequiresAny(List.of(P1, P2));
    assertThat(send(any, request("x-other", p2Token)).passed()).isTrue();
    assertThat(send(any, bearer(rs256(claims().build()))).passed()).isTrue();
    assertRefused(send(any, request()), 401, "Jwt is missing", false);
    assertRefused(send(any, request("x-other", "garbage")), 401,
        "Jwt is not in the form of Header.Payload.Signature with two dots and 3 sections", true);
    assertRefused(send(any, bearer(rs256(claims().issuer("https://evil.example").build()))), 401,
        "Jwt issuer is not configured", true);
    assertRefused(send(any, request("authorization", "Bearer " + rs256(claims().issuer("https://evil.example").build()),
        "x-other", "garbage")), 401,
        "Jwt is not in the form of Header.Payload.Signature with two dots and 3 sections", true);

    Requirement all = new JwtAuthnConfig.RequiresAll(List.of(P1, P2));
    RequestHeaders both = request("authorization", "Bearer " + rs256(claims().build()), "x-other", p2Token);
    assertThat(send(all, both).passed()).isTrue();
    assertThat(both.header("x-other")).as("p2 forwards its token").isEqualTo(p2Token);
    assertRefused(send(all, bearer(rs256(claims().build()))), 401, "Jwt is missing", false);

    Requirement withAudiences = new JwtAuthnConfig.ProviderRequirement("p1", List.of("special"));
    assertRefused(send(withAudiences, bearer(rs256(claims().build()))), 403, "Audiences in Jwt are not allowed", true);
    assertThat(send(withAudiences, bearer(rs256(claims().audience("special").build()))).passed()).isTrue();
  }

  @Test
  void allowMissingAndAllowMissingOrFailed() {
    Requirement missing = new JwtAuthnConfig.AllowMissing();
    assertThat(send(missing, request()).passed()).isTrue();
    RequestHeaders good = bearer(rs256(claims().build()));
    assertThat(send(missing, good).passed()).isTrue();
    assertThat(good.header("x-sub")).isEqualTo("alice");
    assertRefused(send(missing, bearer(rs256(claims().expirationTime(new Date((NOW - 3600) * 1000)).build()))), 401,
        "Jwt is expired", true);

    Requirement orFailed = new JwtAuthnConfig.AllowMissingOrFailed();
    assertThat(send(orFailed, request()).passed()).isTrue();
    RequestHeaders bad = bearer(rs256(claims().issuer("https://evil.example").build()));
    assertThat(send(orFailed, bad).passed()).isTrue();
    assertThat(bad.header("x-sub")).as("nothing forwarded from a failed token").isNull();

    Requirement anyOrMissing = new JwtAuthnConfig.RequiresAny(List.of(P1, missing));
    assertThat(send(anyOrMissing, request()).passed()).isTrue();
    assertRefused(send(anyOrMissing, bearer(rs256(claims().issuer("https://evil.example").build()))), 401,
        "Jwt issuer is not configured", true);
    assertThat(send(new JwtAuthnConfig.RequiresAny(List.of(P1, orFailed)),
        bearer(rs256(claims().issuer("https://evil.example").build()))).passed()).isTrue();
    assertRefused(send(anyOrMissing, bearer("bm90anNvbg.e30.c2ln")), 401, "Jwt header is an invalid JSON", true);
    assertRefused(send(anyOrMissing, bearer("e30.e30.c2ln")), 401,
        "Jwt header [alg] field is required and must be a string", true);
  }

  @Test
  void aRouteMayTurnTheFilterOffOrPickANamedRequirement() {
    JwtAuthnFactory f = factory(P1, p1(), p2());
    assertThat(send(f, route(new JwtAuthnConfig.PerRoute(true, "")), request()).passed()).isTrue();
    assertThat(send(f, route(new JwtAuthnConfig.PerRoute(false, "soft")), request()).passed()).isTrue();
    String p2Token = sign(JWSAlgorithm.RS256, "other", generate(() -> new RSASSASigner(RSA_OTHER)),
        claims().issuer(OTHER_ISSUER).build());
    assertThat(send(f, route(new JwtAuthnConfig.PerRoute(false, "p2")), request("x-other", p2Token)).passed()).isTrue();
    assertRefused(send(f, route(new JwtAuthnConfig.PerRoute(false, "p2")), bearer(rs256(claims().build()))), 401,
        "Jwt is missing", false);
    Outcome unknown = send(f, route(new JwtAuthnConfig.PerRoute(false, "nothing")), request());
    assertThat(unknown.callbacks().replyStatus).isEqualTo(403);
    assertThat(unknown.callbacks().replyBody).isEqualTo("Failed JWT authentication: Wrong requirement_name: nothing");
    assertRefused(send(f, null, request()), 401, "Jwt is missing", false);
  }

  @Test
  void corsPreflightsBypassWhenConfiguredAndRulesWithoutARequirementPass() {
    RequestHeaders preflight = new RequestHeaders("OPTIONS", "http", "api.example", "/path", new DefaultHttpHeaders()
        .add("origin", "https://app.example").add("access-control-request-method", "POST"));
    assertThat(send(factory(P1, true, p1()), null, preflight).passed()).isTrue();
    assertThat(counter("http.ingress.jwt_authn.cors_preflight_bypassed")).isEqualTo(1);
    RequestHeaders again = new RequestHeaders("OPTIONS", "http", "api.example", "/path", new DefaultHttpHeaders()
        .add("origin", "https://app.example").add("access-control-request-method", "POST"));
    assertThat(send(factory(P1, false, p1()), null, again).passed()).isFalse();
    assertThat(send(factory(null, p1()), null, request()).passed()).isTrue();
  }

  private static RouteEntry route(JwtAuthnConfig.PerRoute perRoute) {
    Route route = new Route("r", match("/"),
        new Route.RouteAction(List.of(new Route.WeightedCluster("backend", 1)), Optional.empty(), Optional.empty(),
            Optional.empty(), false, Duration.ofSeconds(15), Optional.empty(), RetryPolicy.NONE),
        HeaderMutations.NONE, HeaderMutations.NONE, Map.of(), Set.of(), Map.of(), Route.RateLimits.NONE,
        Optional.empty());
    return new RouteEntry(route, "vh", List.of(), List.of(), RetryPolicy.NONE, new int[0], Map.of(NAME, perRoute));
  }
}
