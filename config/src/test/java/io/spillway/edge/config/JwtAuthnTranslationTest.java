package io.spillway.edge.config;

import static org.assertj.core.api.Assertions.assertThat;

import com.nimbusds.jose.jwk.Curve;
import com.nimbusds.jose.jwk.gen.ECKeyGenerator;
import com.nimbusds.jose.jwk.gen.RSAKeyGenerator;
import io.envoyproxy.envoy.config.core.v3.DataSource;
import io.envoyproxy.envoy.extensions.filters.http.jwt_authn.v3.JwtAuthentication;
import io.envoyproxy.envoy.extensions.filters.http.jwt_authn.v3.JwtProvider;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * envoy.filters.http.jwt_authn: providers with every supported field and Envoy's defaults, the
 * key set from each DataSource, rules (reusing the route match translation) and requirements,
 * requirement_map, PerRouteConfig, and each refusal naming its field.
 */
class JwtAuthnTranslationTest {

  private static final String TYPE =
      "type.googleapis.com/envoy.extensions.filters.http.jwt_authn.v3.JwtAuthentication";
  private static final String PER_ROUTE_TYPE =
      "type.googleapis.com/envoy.extensions.filters.http.jwt_authn.v3.PerRouteConfig";
  private static final String FILTER = BootstrapYaml.HCM + ".http_filters[0].typed_config";
  private static final String JWKS;

  static {
    try {
      JWKS = "{\"keys\":[" + new RSAKeyGenerator(2048).keyID("r1").generate().toPublicJWK().toJSONString() + ","
          + new ECKeyGenerator(Curve.P_256).keyID("e1").generate().toPublicJWK().toJSONString() + "]}";
    } catch (Exception e) {
      throw new ExceptionInInitializerError(e);
    }
  }

  private static BootstrapYaml yaml(String fields) {
    return BootstrapYaml.minimal().httpFilters("""
        - name: envoy.filters.http.jwt_authn
          typed_config:
            "@type": %s
        %s
        - name: envoy.filters.http.router
        """.formatted(TYPE, fields.stripIndent().indent(4).stripTrailing()));
  }

  private static JwtAuthnConfig translate(String fields) throws ConfigException {
    return yaml(fields).translate().listeners().get(0).hcm().filter("envoy.filters.http.jwt_authn").orElseThrow()
        .settings(JwtAuthnConfig.class);
  }

  private static String refusal(String fields) {
    try {
      translate(fields);
    } catch (ConfigException e) {
      return e.getMessage();
    }
    throw new AssertionError("accepted: " + fields);
  }

  private static String provider(String extra) {
    return """
        providers:
          p1:
            issuer: https://issuer.example
            local_jwks: { inline_string: '%s' }
        %s
        """.formatted(JWKS, extra.stripIndent().indent(4).stripTrailing());
  }

  @Test
  void everySupportedProviderField() throws Exception {
    JwtAuthnConfig c = translate(provider("""
        audiences: [api, https://other.example/]
        forward: true
        from_headers: [ { name: X-Jwt, value_prefix: "Token " } ]
        from_params: [ jwt ]
        from_cookies: [ session ]
        forward_payload_header: X-Jwt-Payload
        pad_forward_payload_header: true
        claim_to_headers: [ { header_name: X-Sub, claim_name: sub }, { header_name: x-tenant, claim_name: org.tenant } ]
        clock_skew_seconds: 5
        max_lifetime: 3600s
        require_expiration: true
        """) + """
        bypass_cors_preflight: true
        strip_failure_response: true
        stat_prefix: edge
        """);
    JwtAuthnConfig.Provider p = c.providers().get("p1");
    assertThat(p.issuer()).isEqualTo("https://issuer.example");
    assertThat(p.audiences()).containsExactly("api", "https://other.example/");
    assertThat(((JwtAuthnConfig.LocalKeys) p.keys()).jwks().getKeys()).extracting(k -> k.getKeyID()).containsExactly("r1", "e1");
    assertThat(p.forward()).isTrue();
    assertThat(p.fromHeaders()).containsExactly(new JwtAuthnConfig.TokenHeader("x-jwt", "Token "));
    assertThat(p.fromParams()).containsExactly("jwt");
    assertThat(p.fromCookies()).containsExactly("session");
    assertThat(p.forwardPayloadHeader()).isEqualTo("x-jwt-payload");
    assertThat(p.padForwardPayloadHeader()).isTrue();
    assertThat(p.claimToHeaders()).containsExactly(new JwtAuthnConfig.ClaimToHeader("x-sub", "sub"),
        new JwtAuthnConfig.ClaimToHeader("x-tenant", "org.tenant"));
    assertThat(p.clockSkewSeconds()).isEqualTo(5);
    assertThat(p.maxLifetime()).contains(Duration.ofHours(1));
    assertThat(p.requireExpiration()).isTrue();
    assertThat(p.defaultLocations()).isFalse();
    assertThat(c.bypassCorsPreflight()).isTrue();
    assertThat(c.stripFailureResponse()).isTrue();
    assertThat(c.statPrefix()).isEqualTo("edge");
    assertThat(c.rules()).isEmpty();
  }

  @Test
  void envoysDefaults() throws Exception {
    JwtAuthnConfig.Provider p = translate(provider("")).providers().get("p1");
    assertThat(p.clockSkewSeconds()).isEqualTo(60);
    assertThat(p.forward()).isFalse();
    assertThat(p.defaultLocations()).isTrue();
    assertThat(p.maxLifetime()).isEmpty();
    assertThat(p.requireExpiration()).isFalse();
    assertThat(p.forwardPayloadHeader()).isEmpty();
  }

  @Test
  void rulesAndRequirementsReuseTheRouteMatch() throws Exception {
    JwtAuthnConfig c = translate(provider("") + """
          p2:
            local_jwks: { inline_string: '%s' }
        rules:
        - match: { prefix: /api, headers: [ { name: x-tenant, exact_match: a } ] }
          requires: { provider_name: p1 }
        - match: { path: /both }
          requires: { requires_all: { requirements: [ { provider_name: p1 }, { provider_and_audiences: { provider_name: p2, audiences: [x] } } ] } }
        - match: { safe_regex: { regex: "/any/.*" } }
          requires: { requires_any: { requirements: [ { provider_name: p2 }, { allow_missing: {} } ] } }
        - match: { prefix: /named }
          requirement_name: soft
        - match: { prefix: /open }
        requirement_map:
          soft: { allow_missing_or_failed: {} }
        """.formatted(JWKS));
    assertThat(c.rules()).hasSize(5);
    JwtAuthnConfig.Rule first = c.rules().get(0);
    assertThat(first.match().path()).isEqualTo(new Route.PathMatch.Prefix("/api"));
    assertThat(first.match().headers()).extracting(Route.HeaderMatch::name).containsExactly("x-tenant");
    assertThat(first.requirement()).contains(new JwtAuthnConfig.ProviderRequirement("p1", List.of()));
    assertThat(c.rules().get(1).requirement()).contains(new JwtAuthnConfig.RequiresAll(List.of(
        new JwtAuthnConfig.ProviderRequirement("p1", List.of()),
        new JwtAuthnConfig.ProviderRequirement("p2", List.of("x")))));
    assertThat(c.rules().get(2).match().path()).isInstanceOf(Route.PathMatch.Regex.class);
    assertThat(c.rules().get(2).requirement()).contains(new JwtAuthnConfig.RequiresAny(List.of(
        new JwtAuthnConfig.ProviderRequirement("p2", List.of()), new JwtAuthnConfig.AllowMissing())));
    assertThat(c.rules().get(3).requirement()).contains(new JwtAuthnConfig.AllowMissingOrFailed());
    assertThat(c.rules().get(4).requirement()).isEmpty();
    assertThat(c.requirementMap()).containsEntry("soft", new JwtAuthnConfig.AllowMissingOrFailed());
  }

  @Test
  void keysFromAFileAndFromTheEnvironment(@TempDir Path dir) throws Exception {
    Path file = dir.resolve("jwks.json");
    Files.writeString(file, JWKS);
    JwtAuthnConfig.Provider fromFile = translate("""
        providers:
          p1:
            local_jwks: { filename: %s }
        """.formatted(file)).providers().get("p1");
    assertThat(((JwtAuthnConfig.LocalKeys) fromFile.keys()).jwks().getKeys()).hasSize(2);

    JwtAuthentication a = JwtAuthentication.newBuilder().putProviders("p1", JwtProvider.newBuilder()
        .setLocalJwks(DataSource.newBuilder().setEnvironmentVariable("JWKS")).build()).build();
    JwtAuthnConfig fromEnv = JwtAuthnTranslator.translate(a, name -> false, FieldPath.ROOT,
        new DataSources(Map.of("JWKS", JWKS)));
    assertThat(((JwtAuthnConfig.LocalKeys) fromEnv.providers().get("p1").keys()).jwks().getKeys()).hasSize(2);
    assertThat(refusalOf(() -> JwtAuthnTranslator.translate(a, name -> false, FieldPath.ROOT, new DataSources(Map.of()))))
        .isEqualTo("providers[\"p1\"].local_jwks.environment_variable: environment variable JWKS is not set or empty");
  }

  @Test
  void perRouteConfig() throws Exception {
    Route route = yaml(provider("")).routes("""
        - match: {prefix: "/"}
          route: {cluster: backend}
          typed_per_filter_config:
            envoy.filters.http.jwt_authn:
              "@type": %s
              requirement_name: soft
        - match: {prefix: "/off"}
          route: {cluster: backend}
          typed_per_filter_config:
            envoy.filters.http.jwt_authn:
              "@type": %s
              disabled: true
        """.formatted(PER_ROUTE_TYPE, PER_ROUTE_TYPE)).translate().listeners().get(0).hcm().routeConfig()
        .virtualHosts().get(0).routes().get(0);
    assertThat(route.filterConfigs().get("envoy.filters.http.jwt_authn"))
        .isEqualTo(new JwtAuthnConfig.PerRoute(false, "soft"));

    String refused = refusalOf(() -> yaml(provider("")).routes("""
        - match: {prefix: "/"}
          route: {cluster: backend}
          typed_per_filter_config:
            envoy.filters.http.jwt_authn:
              "@type": %s
        """.formatted(PER_ROUTE_TYPE)).translate());
    assertThat(refused).isEqualTo(BootstrapYaml.ROUTE
        + ".typed_per_filter_config[\"envoy.filters.http.jwt_authn\"]: one of disabled or requirement_name is required");
  }

  private static JwtAuthnConfig.RemoteKeys remote(String remoteJwks) throws ConfigException {
    return (JwtAuthnConfig.RemoteKeys) translate("""
        providers:
          p1:
            issuer: https://issuer.example
            remote_jwks:
        %s
        """.formatted(remoteJwks.stripIndent().indent(6).stripTrailing())).providers().get("p1").keys();
  }

  private static String remoteRefusal(String remoteJwks) {
    return refusalOf(() -> remote(remoteJwks));
  }

  @Test
  void remoteJwksWithEveryField() throws Exception {
    JwtAuthnConfig.RemoteKeys r = remote("""
        http_uri: { uri: "https://idp.example:8443/.well-known/jwks.json?v=2", cluster: backend, timeout: 2.5s }
        cache_duration: 300s
        async_fetch: { fast_listener: true, failed_refetch_duration: 0.2s }
        retry_policy:
          num_retries: 3
          retry_back_off: { base_interval: 0.05s, max_interval: 1s }
        """);
    assertThat(r.uri()).isEqualTo("https://idp.example:8443/.well-known/jwks.json?v=2");
    assertThat(r.scheme()).isEqualTo("https");
    assertThat(r.authority()).isEqualTo("idp.example:8443");
    assertThat(r.pathAndQuery()).isEqualTo("/.well-known/jwks.json?v=2");
    assertThat(r.cluster()).isEqualTo("backend");
    assertThat(r.timeout()).isEqualTo(Duration.ofMillis(2500));
    assertThat(r.cacheDuration()).isEqualTo(Duration.ofMinutes(5));
    assertThat(r.asyncFetch()).contains(new JwtAuthnConfig.AsyncFetch(true, Duration.ofMillis(200)));
    assertThat(r.retry()).contains(new JwtAuthnConfig.FetchRetry(3, Duration.ofMillis(50), Duration.ofSeconds(1)));
  }

  @Test
  void remoteJwksDefaultsAreEnvoys() throws Exception {
    JwtAuthnConfig.RemoteKeys r = remote("""
        http_uri: { uri: "http://idp.example", cluster: backend, timeout: 1s }
        """);
    assertThat(r.pathAndQuery()).as("a URI without a path asks for /").isEqualTo("/");
    assertThat(r.cacheDuration()).isEqualTo(Duration.ofMinutes(10));
    assertThat(r.asyncFetch()).isEmpty();
    assertThat(r.retry()).as("no retry_policy: no retries").isEmpty();

    assertThat(remote("""
        http_uri: { uri: "http://idp.example/keys", cluster: backend, timeout: 1s }
        async_fetch: {}
        retry_policy: {}
        """)).satisfies(d -> {
          assertThat(d.asyncFetch()).contains(new JwtAuthnConfig.AsyncFetch(false, Duration.ofSeconds(1)));
          assertThat(d.retry()).contains(new JwtAuthnConfig.FetchRetry(1, Duration.ofSeconds(1), Duration.ofSeconds(10)));
        });
    assertThat(remote("""
        http_uri: { uri: "http://idp.example/keys", cluster: backend, timeout: 1s }
        retry_policy: { retry_back_off: { base_interval: 0.1s } }
        """).retry()).as("max_interval defaults to 10 x base_interval")
        .contains(new JwtAuthnConfig.FetchRetry(1, Duration.ofMillis(100), Duration.ofSeconds(1)));
  }

  @Test
  void remoteJwksRefusalsNameTheField() {
    String at = FILTER + ".providers[\"p1\"].remote_jwks";
    assertThat(remoteRefusal("""
        http_uri: { uri: "http://idp.example/keys", cluster: nowhere, timeout: 1s }
        """)).isEqualTo(at + ".http_uri.cluster: unknown cluster \"nowhere\" (no cluster of that name is configured)");
    assertThat(remoteRefusal("""
        http_uri: { uri: "idp.example/keys", cluster: backend, timeout: 1s }
        """)).startsWith(at + ".http_uri.uri: Provider 'p1' has an invalid URI: 'idp.example/keys'");
    assertThat(remoteRefusal("""
        http_uri: { uri: "ftp://idp.example/keys", cluster: backend, timeout: 1s }
        """)).startsWith(at + ".http_uri.uri: Provider 'p1' has an invalid URI");
    assertThat(remoteRefusal("""
        http_uri: { uri: "http://idp.example/keys", cluster: backend }
        """)).isEqualTo(at + ".http_uri.timeout: timeout is required");
    assertThat(remoteRefusal("""
        cache_duration: 1s
        """)).isEqualTo(at + ".http_uri: http_uri is required");
    assertThat(remoteRefusal("""
        http_uri: { uri: "http://idp.example/keys", cluster: backend, timeout: 1s }
        cache_duration: 0s
        """)).isEqualTo(at + ".cache_duration: must be at least 1ms and less than 9000000000s");
    assertThat(remoteRefusal("""
        http_uri: { uri: "http://idp.example/keys", cluster: backend, timeout: 1s }
        retry_policy: { retry_back_off: { max_interval: 1s } }
        """)).isEqualTo(at + ".retry_policy.retry_back_off.base_interval: base_interval is required");
    assertThat(remoteRefusal("""
        http_uri: { uri: "http://idp.example/keys", cluster: backend, timeout: 1s }
        retry_policy: { retry_back_off: { base_interval: 2s, max_interval: 1s } }
        """)).isEqualTo(at + ".retry_policy.retry_back_off.max_interval: "
            + "max_interval must be greater than or equal to the base_interval");
    assertThat(remoteRefusal("""
        http_uri: { uri: "http://idp.example/keys", cluster: backend, timeout: 1s }
        retry_policy: { retry_on: "5xx" }
        """)).isEqualTo(at + ".retry_policy.retry_on: retry_on is not supported");
    assertThat(remoteRefusal("""
        http_uri: { uri: "http://idp.example/keys", cluster: backend, timeout: 1s }
        retry_policy: { retry_host_predicate: [ { name: envoy.retry_host_predicates.previous_hosts } ] }
        """)).isEqualTo(at + ".retry_policy.retry_host_predicate: retry_host_predicate is not supported");
  }

  @Test
  void refusalsNameTheField() {
    String p1 = FILTER + ".providers[\"p1\"]";
    assertThat(refusal(provider("payload_in_metadata: jwt")))
        .isEqualTo(p1 + ".payload_in_metadata: payload_in_metadata is not supported");
    assertThat(refusal(provider("subjects: { exact: me }"))).isEqualTo(p1 + ".subjects: subjects is not supported");
    assertThat(refusal(provider("jwt_cache_config: { jwt_cache_size: 10 }")))
        .startsWith(p1 + ".jwt_cache_config: jwt_cache_config is not supported");
    assertThat(refusal(provider("") + "filter_state_rules: { name: x }"))
        .isEqualTo(FILTER + ".filter_state_rules: filter_state_rules is not supported");
    assertThat(refusal("""
        providers:
          p1: { issuer: x }
        """)).isEqualTo(p1 + ": one of remote_jwks or local_jwks is required");
    assertThat(refusal("""
        providers:
          p1: { local_jwks: { inline_string: "not json" } }
        """)).startsWith(p1 + ".local_jwks: inline_string is not a valid JWKS");
    assertThat(refusal("""
        providers:
          p1: { local_jwks: { inline_string: '{"keys":[{"kty":"oct","k":"c2hvcnQ"}]}' } }
        """)).contains(p1 + ".local_jwks: inline_string: key 0 is an oct key of 40 bits");
    assertThat(refusal(provider("") + """
        rules:
        - match: { prefix: / }
          requires: { provider_name: nobody }
        """)).isEqualTo(FILTER + ".rules[0].requires.provider_name: \"nobody\" is not in providers");
    assertThat(refusal(provider("") + """
        rules:
        - match: { prefix: / }
          requirement_name: nothing
        """)).isEqualTo(FILTER + ".rules[0].requirement_name: \"nothing\" is not in requirement_map");
    assertThat(refusal(provider("") + """
        rules:
        - match: { prefix: / }
          requires: { requires_any: { requirements: [ { provider_name: p1 } ] } }
        """)).isEqualTo(FILTER + ".rules[0].requires.requires_any.requirements: at least 2 requirements are"
            + " required, not 1");
    assertThat(refusal(provider("") + """
        rules:
        - requires: { provider_name: p1 }
        """)).isEqualTo(FILTER + ".rules[0].match: match is required");
    assertThat(refusal(provider("") + """
        rules:
        - match: { safe_regex: { regex: "(" } }
        """)).startsWith(FILTER + ".rules[0].match.safe_regex.regex");
    assertThat(refusal(provider("forward_payload_header: \"bad header\"")))
        .startsWith(p1 + ".forward_payload_header: ");
  }

  private interface Action {
    void run() throws ConfigException;
  }

  private static String refusalOf(Action action) {
    try {
      action.run();
    } catch (ConfigException e) {
      return e.getMessage();
    }
    throw new AssertionError("accepted");
  }
}
