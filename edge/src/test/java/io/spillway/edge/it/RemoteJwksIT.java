package io.spillway.edge.it;

import static io.spillway.edge.it.EdgeHarness.cluster;
import static org.assertj.core.api.Assertions.assertThat;

import com.nimbusds.jose.JWSAlgorithm;
import com.nimbusds.jose.JWSHeader;
import com.nimbusds.jose.crypto.RSASSASigner;
import com.nimbusds.jose.jwk.RSAKey;
import com.nimbusds.jose.jwk.gen.RSAKeyGenerator;
import com.nimbusds.jwt.JWTClaimsSet;
import com.nimbusds.jwt.SignedJWT;
import com.sun.net.httpserver.HttpServer;
import io.spillway.testkit.OriginServer;
import java.net.InetSocketAddress;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Date;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * jwt_authn with {@code remote_jwks} in a real edge (two workers) on 127.0.0.1: a real backend and
 * a real JWKS server (the JDK's HTTP server) behind a cluster of the edge. The first requests wait
 * for one fetch and are allowed, a bad token is refused, a JWKS server that is down gets Envoy's
 * 401 "Jwks remote fetch is failed", a rotated key is picked up once a short cache_duration has
 * passed, and with async_fetch the keys are there before the listener serves.
 */
class RemoteJwksIT {

  private static final String TYPE =
      "type.googleapis.com/envoy.extensions.filters.http.jwt_authn.v3.JwtAuthentication";
  private static final String ISSUER = "https://issuer.example";

  private OriginServer upstream;
  private HttpServer jwksServer;
  private final AtomicReference<String> jwks = new AtomicReference<>();
  private final AtomicInteger jwksRequests = new AtomicInteger();
  private final AtomicLong jwksDelayMillis = new AtomicLong();
  private final List<String> jwksHosts = new CopyOnWriteArrayList<>();
  private EdgeHarness edge;
  private RSAKey keyA;
  private RSAKey keyB;

  @BeforeEach
  void start() throws Exception {
    upstream = OriginServer.start("upstream");
    keyA = new RSAKeyGenerator(2048).keyID("a").generate();
    keyB = new RSAKeyGenerator(2048).keyID("b").generate();
    jwks.set(jwksOf(keyA));
    jwksServer = HttpServer.create(new InetSocketAddress("127.0.0.1", 0), 0);
    jwksServer.createContext("/keys", exchange -> {
      jwksRequests.incrementAndGet();
      jwksHosts.add(exchange.getRequestHeaders().getFirst("Host"));
      try {
        Thread.sleep(jwksDelayMillis.get()); // the JWKS server's own thread: a slow identity provider
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
      }
      byte[] body = jwks.get().getBytes(StandardCharsets.UTF_8);
      exchange.getResponseHeaders().set("content-type", "application/json");
      exchange.sendResponseHeaders(200, body.length);
      exchange.getResponseBody().write(body);
      exchange.close();
    });
    jwksServer.start();
  }

  @AfterEach
  void close() {
    if (edge != null) {
      edge.close();
    }
    jwksServer.stop(0);
    upstream.close();
  }

  private static String jwksOf(RSAKey key) {
    return "{\"keys\":[" + key.toPublicJWK().toJSONString() + "]}";
  }

  private EdgeHarness startEdge(int jwksPort, String remoteExtra) throws Exception {
    return EdgeHarness.startWithFilter("""
        - match: { prefix: "/" }
          route: { cluster: upstream, timeout: 10s }
        """, cluster("upstream", "", upstream.port()) + "\n" + cluster("jwks", "", jwksPort),
        "envoy.filters.http.jwt_authn", TYPE, """
        providers:
          main:
            issuer: %s
            remote_jwks:
              http_uri: { uri: "http://idp.example/keys", cluster: jwks, timeout: 5s }
        %s
        rules:
        - match: { prefix: "/" }
          requires: { provider_name: main }
        """.formatted(ISSUER, EdgeHarness.indent(remoteExtra, 6)));
  }

  private static String token(RSAKey key) throws Exception {
    SignedJWT jwt = new SignedJWT(new JWSHeader.Builder(JWSAlgorithm.RS256).keyID(key.getKeyID()).build(),
        new JWTClaimsSet.Builder().issuer(ISSUER).subject("alice")
            .expirationTime(new Date(System.currentTimeMillis() + 600_000)).build());
    jwt.sign(new RSASSASigner(key));
    return jwt.serialize();
  }

  private HttpResponse<String> get(String token) throws Exception {
    return edge.get("/api", "authorization", "Bearer " + token);
  }

  @Test
  void theFirstRequestsWaitForOneFetchAndAreAllowedAndABadTokenIsRefused() throws Exception {
    edge = startEdge(jwksServer.getAddress().getPort(), "");
    assertThat(jwksRequests.get()).as("without async_fetch nothing is fetched before a request").isZero();
    jwksDelayMillis.set(300);
    String token = token(keyA);
    List<CompletableFuture<HttpResponse<String>>> concurrent = new ArrayList<>();
    for (int i = 0; i < 6; i++) {
      concurrent.add(CompletableFuture.supplyAsync(() -> {
        try {
          return get(token);
        } catch (Exception e) {
          throw new IllegalStateException(e);
        }
      }));
    }
    for (CompletableFuture<HttpResponse<String>> f : concurrent) {
      assertThat(f.get(20, TimeUnit.SECONDS).statusCode()).isEqualTo(200);
    }
    assertThat(jwksRequests.get()).as("one fetch for every waiting request, whatever their worker").isEqualTo(1);
    assertThat(jwksHosts).containsExactly("idp.example");
    assertThat(upstream.requestCount()).isEqualTo(6);

    HttpResponse<String> forged = get(token(keyB));
    assertThat(forged.statusCode()).isEqualTo(401);
    assertThat(forged.body()).isEqualTo("Jwks doesn't have key to match kid or alg from Jwt");
    assertThat(upstream.requestCount()).isEqualTo(6);
    assertThat(edge.awaitStat("http.ingress.jwt_authn.jwks_fetch_success", 1)).isEqualTo(1);
    assertThat(edge.awaitStat("http.ingress.jwt_authn.allowed", 6)).isEqualTo(6);
    assertThat(edge.awaitStat("http.ingress.jwt_authn.denied", 1)).isEqualTo(1);
    assertThat(edge.awaitStat("cluster.jwks.upstream_rq_2xx", 1)).isEqualTo(1);
  }

  @Test
  void aJwksServerThatIsDownGetsEnvoysUnauthorized() throws Exception {
    int port = jwksServer.getAddress().getPort();
    jwksServer.stop(0);
    edge = startEdge(port, """
        retry_policy: { num_retries: 1, retry_back_off: { base_interval: 0.01s, max_interval: 0.05s } }
        """);
    HttpResponse<String> r = get(token(keyA));
    assertThat(r.statusCode()).isEqualTo(401);
    assertThat(r.body()).isEqualTo("Jwks remote fetch is failed");
    assertThat(r.headers().firstValue("www-authenticate").orElseThrow())
        .matches("Bearer realm=\"http://127\\.0\\.0\\.1:\\d+/api\", error=\"invalid_token\"");
    assertThat(upstream.requestCount()).isZero();
    assertThat(edge.awaitStat("http.ingress.jwt_authn.jwks_fetch_failed", 1)).isEqualTo(1);
    assertThat(edge.awaitStat("cluster.jwks.upstream_rq_retry", 1)).as("the retry policy's one retry").isEqualTo(1);
    assertThat(edge.awaitStat("http.ingress.jwt_authn.denied", 1)).isEqualTo(1);
  }

  @Test
  void aRotatedKeyIsPickedUpOnceTheCacheDurationHasPassed() throws Exception {
    edge = startEdge(jwksServer.getAddress().getPort(), "cache_duration: 0.3s");
    assertThat(get(token(keyA)).statusCode()).isEqualTo(200);
    jwks.set(jwksOf(keyB));
    String rotated = token(keyB);
    int status = 0;
    for (int i = 0; i < 100 && status != 200; i++) { // bounded: at most 100 tries over about 10 s
      status = get(rotated).statusCode();
      if (status != 200) {
        assertThat(status).isEqualTo(401);
        Thread.sleep(100);
      }
    }
    assertThat(status).as("the new key is used after cache_duration").isEqualTo(200);
    assertThat(get(token(keyA)).statusCode()).as("the old key is gone with its JWKS").isEqualTo(401);
    assertThat(jwksRequests.get()).isGreaterThanOrEqualTo(2);
  }

  @Test
  void withAsyncFetchTheKeysAreThereBeforeTheListenerServes() throws Exception {
    jwksDelayMillis.set(300);
    edge = startEdge(jwksServer.getAddress().getPort(), "async_fetch: {}");
    assertThat(edge.stat("http.ingress.jwt_authn.jwks_fetch_success"))
        .as("without fast_listener the edge was not ready before the first fetch").isEqualTo(1);
    jwksDelayMillis.set(0);
    assertThat(get(token(keyA)).statusCode()).isEqualTo(200);
    assertThat(get(token(keyA)).statusCode()).isEqualTo(200);
    assertThat(jwksRequests.get()).as("requests used the background fetch's keys").isEqualTo(1);
  }
}
