package io.spillway.edge.it;

import static io.spillway.edge.it.EdgeHarness.cluster;
import static org.assertj.core.api.Assertions.assertThat;

import com.nimbusds.jose.JWSAlgorithm;
import com.nimbusds.jose.JWSHeader;
import com.nimbusds.jose.crypto.ECDSASigner;
import com.nimbusds.jose.crypto.RSASSASigner;
import com.nimbusds.jose.jwk.Curve;
import com.nimbusds.jose.jwk.ECKey;
import com.nimbusds.jose.jwk.RSAKey;
import com.nimbusds.jose.jwk.gen.ECKeyGenerator;
import com.nimbusds.jose.jwk.gen.RSAKeyGenerator;
import com.nimbusds.jwt.JWTClaimsSet;
import com.nimbusds.jwt.SignedJWT;
import io.spillway.testkit.OriginServer;
import io.spillway.testkit.RecordedRequest;
import java.net.http.HttpResponse;
import java.util.Date;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * envoy.filters.http.jwt_authn in a real edge from an Envoy bootstrap, on 127.0.0.1, with tokens
 * signed in the test (RS256 and ES256, keys in local_jwks): a valid token reaches the backend
 * with its payload header and claim header and without its token header; a bad or missing one
 * gets Envoy's 401 with {@code www-authenticate} and never reaches it; allow_missing lets a
 * request without a token through; a route can turn the filter off; the stats count both ways.
 */
class JwtAuthnIT {

  private static final String TYPE =
      "type.googleapis.com/envoy.extensions.filters.http.jwt_authn.v3.JwtAuthentication";
  private static final String PER_ROUTE = "type.googleapis.com/envoy.extensions.filters.http.jwt_authn.v3.PerRouteConfig";
  private static final String ISSUER = "https://issuer.example";

  private OriginServer upstream;
  private EdgeHarness edge;
  private RSAKey rsa;
  private ECKey ec;

  @BeforeEach
  void start() throws Exception {
    upstream = OriginServer.start("upstream");
    rsa = new RSAKeyGenerator(2048).keyID("rsa-1").generate();
    ec = new ECKeyGenerator(Curve.P_256).keyID("ec-1").generate();
    String jwks = "{\"keys\":[" + rsa.toPublicJWK().toJSONString() + "," + ec.toPublicJWK().toJSONString() + "]}";
    edge = EdgeHarness.startWithFilter("""
        - match: { prefix: "/public" }
          route: { cluster: upstream, timeout: 10s }
          typed_per_filter_config:
            envoy.filters.http.jwt_authn:
              "@type": %s
              disabled: true
        - match: { prefix: "/" }
          route: { cluster: upstream, timeout: 10s }
        """.formatted(PER_ROUTE), cluster("upstream", "", upstream.port()), "envoy.filters.http.jwt_authn", TYPE, """
        providers:
          main:
            issuer: %s
            audiences: [ api ]
            local_jwks: { inline_string: '%s' }
            forward_payload_header: x-jwt-payload
            claim_to_headers: [ { header_name: x-jwt-sub, claim_name: sub } ]
        rules:
        - match: { prefix: "/optional" }
          requires: { allow_missing: {} }
        - match: { prefix: "/" }
          requires: { provider_name: main }
        """.formatted(ISSUER, jwks));
  }

  @AfterEach
  void close() {
    if (edge != null) {
      edge.close();
    }
    upstream.close();
  }

  private String token(boolean ecdsa, long expiresInSeconds) throws Exception {
    return token(ecdsa, expiresInSeconds, "alice");
  }

  private String token(boolean ecdsa, long expiresInSeconds, String subject) throws Exception {
    JWTClaimsSet claims = new JWTClaimsSet.Builder().issuer(ISSUER).subject(subject).audience("api")
        .expirationTime(new Date(System.currentTimeMillis() + expiresInSeconds * 1000)).build();
    SignedJWT jwt = new SignedJWT(new JWSHeader.Builder(ecdsa ? JWSAlgorithm.ES256 : JWSAlgorithm.RS256)
        .keyID(ecdsa ? "ec-1" : "rsa-1").build(), claims);
    jwt.sign(ecdsa ? new ECDSASigner(ec) : new RSASSASigner(rsa));
    return jwt.serialize();
  }

  @Test
  void aPolicyLimitKeyedByTheSubjectCountsEachVerifiedSubjectAfterTheFilter() throws Exception {
    edge.server().policyRateLimits().apply(new io.spillway.policy.RateLimitsPolicy(java.util.List.of(
        new io.spillway.policy.RateLimit("per-user", "subject", 0.001, 2, io.spillway.policy.Mode.ENFORCE, null, null,
            null))));
    String alice = token(false, 600, "alice");
    assertThat(edge.get("/api", "authorization", "Bearer " + alice).statusCode()).isEqualTo(200);
    assertThat(edge.get("/api", "authorization", "Bearer " + token(true, 600, "alice")).statusCode())
        .as("another token of the same subject shares its count").isEqualTo(200);
    HttpResponse<String> refused = edge.get("/api", "authorization", "Bearer " + alice);
    assertThat(refused.statusCode()).isEqualTo(429);
    assertThat(refused.headers().firstValue("retry-after")).isPresent();
    assertThat(edge.get("/api", "authorization", "Bearer " + token(false, 600, "bob")).statusCode()).isEqualTo(200);
    assertThat(edge.get("/api", "authorization", "Bearer " + token(false, -3600, "alice")).statusCode())
        .as("an expired token is refused by jwt_authn first").isEqualTo(401);
    for (int i = 0; i < 3; i++) {
      assertThat(edge.get("/optional").statusCode()).as("no verified token: not limited").isEqualTo(200);
    }
    assertThat(edge.stat("http_ratelimit_checked_total.limit.per-user")).isEqualTo(4);
    assertThat(edge.stat("http_ratelimit_refused_total.limit.per-user.mode.enforce")).isEqualTo(1);
    assertThat(upstream.requestCount()).isEqualTo(6);
  }

  @Test
  void validTokensReachTheBackendWithTheirPayloadAndClaims() throws Exception {
    String token = token(false, 600);
    HttpResponse<String> r = edge.get("/api", "authorization", "Bearer " + token);
    assertThat(r.statusCode()).isEqualTo(200);
    RecordedRequest seen = upstream.lastRequest();
    assertThat(seen.header("x-jwt-payload")).isEqualTo(token.split("\\.")[1]);
    assertThat(seen.header("x-jwt-sub")).isEqualTo("alice");
    assertThat(seen.header("authorization")).as("forward is false by default").isNull();

    assertThat(edge.get("/api", "authorization", "Bearer " + token(true, 600)).statusCode()).isEqualTo(200);
    assertThat(upstream.requestCount()).isEqualTo(2);
    assertThat(edge.awaitStat("http.ingress.jwt_authn.allowed", 2)).isEqualTo(2);
  }

  @Test
  void badAndMissingTokensGetEnvoysUnauthorizedAndNeverReachTheBackend() throws Exception {
    HttpResponse<String> expired = edge.get("/api", "authorization", "Bearer " + token(false, -3600));
    assertThat(expired.statusCode()).isEqualTo(401);
    assertThat(expired.body()).isEqualTo("Jwt is expired");
    assertThat(expired.headers().firstValue("www-authenticate").orElseThrow())
        .matches("Bearer realm=\"http://127\\.0\\.0\\.1:\\d+/api\", error=\"invalid_token\"");

    String good = token(false, 600);
    String forged = good.substring(0, good.lastIndexOf('.') + 1) + "AAAA" + good.substring(good.lastIndexOf('.') + 5);
    HttpResponse<String> bad = edge.get("/api", "authorization", "Bearer " + forged);
    assertThat(bad.statusCode()).isEqualTo(401);
    assertThat(bad.body()).isEqualTo("Jwt verification fails");

    HttpResponse<String> missing = edge.get("/api");
    assertThat(missing.statusCode()).isEqualTo(401);
    assertThat(missing.body()).isEqualTo("Jwt is missing");
    assertThat(missing.headers().firstValue("www-authenticate").orElseThrow())
        .matches("Bearer realm=\"http://127\\.0\\.0\\.1:\\d+/api\"");

    assertThat(upstream.requestCount()).isZero();
    assertThat(edge.awaitStat("http.ingress.jwt_authn.denied", 3)).isEqualTo(3);
  }

  @Test
  void allowMissingAndARouteWithTheFilterOffLetRequestsWithoutATokenThrough() throws Exception {
    assertThat(edge.get("/optional/page").statusCode()).isEqualTo(200);
    assertThat(edge.get("/optional/page", "authorization", "Bearer " + token(false, -3600)).statusCode())
        .as("allow_missing still refuses a bad token").isEqualTo(401);
    assertThat(edge.get("/public/page").statusCode()).isEqualTo(200);
    assertThat(edge.get("/public/page", "authorization", "Bearer garbage").statusCode()).isEqualTo(200);
    assertThat(upstream.requestCount()).isEqualTo(3);
  }
}
