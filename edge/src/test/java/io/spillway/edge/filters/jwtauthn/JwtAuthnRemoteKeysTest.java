package io.spillway.edge.filters.jwtauthn;

import static org.assertj.core.api.Assertions.assertThat;

import com.nimbusds.jose.JWSAlgorithm;
import com.nimbusds.jose.JWSHeader;
import com.nimbusds.jose.crypto.RSASSASigner;
import com.nimbusds.jose.jwk.RSAKey;
import com.nimbusds.jose.jwk.gen.RSAKeyGenerator;
import com.nimbusds.jwt.JWTClaimsSet;
import com.nimbusds.jwt.SignedJWT;
import io.netty.buffer.ByteBufAllocator;
import io.netty.buffer.Unpooled;
import io.netty.channel.embedded.EmbeddedChannel;
import io.netty.handler.codec.http.DefaultHttpHeaders;
import io.spillway.edge.config.JwtAuthnConfig;
import io.spillway.edge.config.Route;
import io.spillway.edge.http.filter.FilterDataStatus;
import io.spillway.edge.http.filter.FilterHeadersStatus;
import io.spillway.edge.http.message.RequestHeaders;
import io.spillway.edge.runtime.RuntimeSnapshot;
import io.spillway.edge.stats.Counter;
import io.spillway.edge.stats.StatsStore;
import io.spillway.edge.upstream.Worker;
import java.time.Duration;
import java.util.ArrayDeque;
import java.util.Date;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.SplittableRandom;
import java.util.function.Consumer;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * The jwt_authn filter with a remote_jwks provider, the fetch answered by the test and the
 * stream's worker loop an EmbeddedChannel's (its tasks run when the test says): the request stops
 * without a reply while the keys are fetched and resumes on its loop when they come, is refused
 * with Envoy's "Jwks remote fetch is failed" when the fetch fails, and never waits for keys it
 * would not use (no token, an expired one). A stream that went away before the fetch ended is
 * left alone.
 */
class JwtAuthnRemoteKeysTest {
  private static final String NAME = "envoy.filters.http.jwt_authn";
  private static final long NOW = 1_800_000_000L;
  private static final String ISSUER = "https://issuer.example";
  private static final RSAKey RSA;

  static {
    try {
      RSA = new RSAKeyGenerator(2048).keyID("rsa-1").generate();
    } catch (Exception e) {
      throw new ExceptionInInitializerError(e);
    }
  }

  private final StatsStore stats = new StatsStore();
  private final EmbeddedChannel channel = new EmbeddedChannel();
  private final Worker worker = new Worker(0, channel.eventLoop(), new SplittableRandom(7), () -> {
    throw new UnsupportedOperationException("no connections here");
  }, ByteBufAllocator.DEFAULT);
  private final ArrayDeque<Consumer<RemoteJwksCache.FetchResult>> fetches = new ArrayDeque<>();
  private final JwtAuthnFactory factory = factory();

  @AfterEach
  void close() {
    channel.finishAndReleaseAll();
  }

  private JwtAuthnFactory factory() {
    JwtAuthnConfig.RemoteKeys remote = new JwtAuthnConfig.RemoteKeys("http://idp/keys", "http", "idp", "/keys", "idp",
        Duration.ofSeconds(1), Duration.ofMinutes(10), Optional.empty(), Optional.empty());
    JwtAuthnConfig.Provider p = new JwtAuthnConfig.Provider("p1", ISSUER, List.of(), remote, List.of(), List.of(),
        List.of(), false, "x-jwt-payload", false, List.of(), 60, Optional.empty(), false);
    JwtAuthnConfig config = new JwtAuthnConfig(Map.of("p1", p), List.of(new JwtAuthnConfig.Rule(
        new Route.Match(new Route.PathMatch.Prefix("/"), true, List.of(), List.of()),
        Optional.of(new JwtAuthnConfig.ProviderRequirement("p1", List.of())))), Map.of(), false, false, "");
    return new JwtAuthnFactory(NAME, config, stats.rootScope().scope("http").scope("ingress"),
        () -> RuntimeSnapshot.EMPTY, new JwtAuthnFactory.RemoteFetching(k -> (w, done) -> fetches.add(done),
            () -> 0L, List.of(worker), w -> (task, delay) -> () -> {}));
  }

  private static String token(long expiresAt) throws Exception {
    SignedJWT jwt = new SignedJWT(new JWSHeader.Builder(JWSAlgorithm.RS256).keyID("rsa-1").build(),
        new JWTClaimsSet.Builder().issuer(ISSUER).subject("alice").expirationTime(new Date(expiresAt * 1000)).build());
    jwt.sign(new RSASSASigner(RSA));
    return jwt.serialize();
  }

  private static RequestHeaders request(String token) {
    DefaultHttpHeaders h = new DefaultHttpHeaders();
    if (token != null) {
      h.add("authorization", "Bearer " + token);
    }
    return new RequestHeaders("GET", "http", "api.example", "/", h);
  }

  private record Stream(JwtAuthnFilter filter, FakeCallbacks callbacks, FilterHeadersStatus status) {}

  private Stream send(RequestHeaders request) {
    FakeCallbacks callbacks = new FakeCallbacks(null, request, NOW, worker);
    JwtAuthnFilter filter = new JwtAuthnFilter(factory);
    filter.setDecoderFilterCallbacks(callbacks);
    return new Stream(filter, callbacks, filter.decodeHeaders(request, false));
  }

  private long counter(String name) {
    return stats.find("http.ingress.jwt_authn." + name).map(s -> ((Counter) s).value()).orElse(0L);
  }

  private static String jwks() {
    return "{\"keys\":[" + RSA.toPublicJWK().toJSONString() + "]}";
  }

  @Test
  void theRequestWaitsForTheFetchWithoutAReplyAndResumesOnItsLoop() throws Exception {
    String token = token(NOW + 600);
    Stream s = send(request(token));
    assertThat(s.status()).isEqualTo(FilterHeadersStatus.STOP_ITERATION);
    assertThat(s.callbacks().replies).isZero();
    assertThat(fetches).hasSize(1);
    assertThat(s.filter().decodeData(Unpooled.EMPTY_BUFFER, true))
        .as("the body waits behind the filter").isEqualTo(FilterDataStatus.STOP_ITERATION_AND_WATERMARK);
    Stream second = send(request(token));
    assertThat(fetches).as("a second request joins the fetch in flight").hasSize(1);

    fetches.poll().accept(new RemoteJwksCache.FetchResult.Fetched(jwks()));
    assertThat(s.callbacks().continued).as("not resumed from the fetch's own call").isZero();
    channel.runPendingTasks();
    assertThat(s.callbacks().continued).isEqualTo(1);
    assertThat(second.callbacks().continued).isEqualTo(1);
    assertThat(s.callbacks().replies).isZero();
    assertThat(s.callbacks().request.header("x-jwt-payload")).isEqualTo(token.split("\\.")[1]);
    assertThat(s.filter().decodeData(Unpooled.EMPTY_BUFFER, true)).isEqualTo(FilterDataStatus.CONTINUE);
    assertThat(counter("allowed")).isEqualTo(2);
    assertThat(counter("jwks_fetch_success")).isEqualTo(1);

    Stream third = send(request(token));
    assertThat(third.status()).as("cached keys: decided inline").isEqualTo(FilterHeadersStatus.CONTINUE);
    assertThat(fetches).isEmpty();
  }

  @Test
  void aFailedFetchRefusesWithEnvoysStatus() throws Exception {
    Stream s = send(request(token(NOW + 600)));
    fetches.poll().accept(new RemoteJwksCache.FetchResult.Failed("connection refused"));
    channel.runPendingTasks();
    assertThat(s.callbacks().continued).isZero();
    assertThat(s.callbacks().replies).isEqualTo(1);
    assertThat(s.callbacks().replyStatus).isEqualTo(401);
    assertThat(s.callbacks().replyBody).isEqualTo("Jwks remote fetch is failed");
    assertThat(s.callbacks().replyHeaders.get("www-authenticate"))
        .isEqualTo("Bearer realm=\"http://api.example/\", error=\"invalid_token\"");
    assertThat(counter("denied")).isEqualTo(1);
    assertThat(counter("jwks_fetch_failed")).isEqualTo(1);
  }

  @Test
  void noFetchForAMissingOrExpiredToken() throws Exception {
    Stream missing = send(request(null));
    assertThat(missing.callbacks().replyBody).isEqualTo("Jwt is missing");
    Stream expired = send(request(token(NOW - 3600)));
    assertThat(expired.callbacks().replyBody).isEqualTo("Jwt is expired");
    assertThat(fetches).as("the time checks come before the keys, as in Envoy").isEmpty();
  }

  @Test
  void aStreamGoneBeforeTheFetchEndedIsLeftAlone() throws Exception {
    Stream s = send(request(token(NOW + 600)));
    s.filter().onDestroy();
    fetches.poll().accept(new RemoteJwksCache.FetchResult.Fetched(jwks()));
    channel.runPendingTasks();
    assertThat(s.callbacks().continued).isZero();
    assertThat(s.callbacks().replies).isZero();
    assertThat(counter("allowed") + counter("denied")).isZero();
  }
}
