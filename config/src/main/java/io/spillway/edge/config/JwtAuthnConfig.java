package io.spillway.edge.config;

import com.nimbusds.jose.jwk.JWKSet;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;

/**
 * {@code envoy.filters.http.jwt_authn} ({@code JwtAuthentication}), translated: the providers
 * with their key sets parsed, the rules with their matches and requirements, the named
 * requirements a route may pick.
 *
 * @param providers provider name → provider, in name order
 * @param rules {@code rules} in order: the first whose match holds gives the request's requirement
 * @param requirementMap {@code requirement_map}: what a route's {@code requirement_name} refers to
 * @param bypassCorsPreflight whether CORS preflight requests pass without a token
 * @param stripFailureResponse whether a refusal carries neither body nor {@code www-authenticate}
 * @param statPrefix {@code stat_prefix}: the stats are {@code http.<hcm>.jwt_authn.<statPrefix>}
 *     when it is set, {@code http.<hcm>.jwt_authn.} otherwise
 */
public record JwtAuthnConfig(
    Map<String, Provider> providers,
    List<Rule> rules,
    Map<String, Requirement> requirementMap,
    boolean bypassCorsPreflight,
    boolean stripFailureResponse,
    String statPrefix) implements HttpFilterConfig.Settings {

  public JwtAuthnConfig {
    providers = Map.copyOf(providers);
    rules = List.copyOf(rules);
    requirementMap = Map.copyOf(requirementMap);
    Objects.requireNonNull(statPrefix, "statPrefix");
  }

  /** Envoy's default {@code clock_skew_seconds}. */
  public static final long DEFAULT_CLOCK_SKEW_SECONDS = 60;

  /**
   * One {@code JwtProvider}.
   *
   * @param name its key in {@code providers}
   * @param issuer {@code issuer}; empty accepts any {@code iss}
   * @param audiences {@code audiences}; empty accepts any {@code aud}
   * @param keys where the keys come from: {@code local_jwks}, parsed when the configuration was
   *     loaded, or {@code remote_jwks}, fetched through a cluster
   * @param fromHeaders {@code from_headers}
   * @param fromParams {@code from_params}
   * @param fromCookies {@code from_cookies}
   * @param forward whether the token stays in the request sent upstream
   * @param forwardPayloadHeader the header the verified payload goes to (base64url), or empty
   * @param padForwardPayloadHeader whether that base64url value is padded
   * @param claimToHeaders claims copied to request headers once the token is verified
   * @param clockSkewSeconds tolerance of {@code exp} and {@code nbf}
   * @param maxLifetime {@code max_lifetime}: {@code exp} may be at most this far ahead (an
   *     {@code exp} is then required)
   * @param requireExpiration whether a token without {@code exp} is refused
   */
  public record Provider(
      String name,
      String issuer,
      List<String> audiences,
      KeySource keys,
      List<TokenHeader> fromHeaders,
      List<String> fromParams,
      List<String> fromCookies,
      boolean forward,
      String forwardPayloadHeader,
      boolean padForwardPayloadHeader,
      List<ClaimToHeader> claimToHeaders,
      long clockSkewSeconds,
      Optional<Duration> maxLifetime,
      boolean requireExpiration) {
    public Provider {
      audiences = List.copyOf(audiences);
      fromHeaders = List.copyOf(fromHeaders);
      fromParams = List.copyOf(fromParams);
      fromCookies = List.copyOf(fromCookies);
      claimToHeaders = List.copyOf(claimToHeaders);
      Objects.requireNonNull(keys, "keys");
    }

    /** Whether the token locations are Envoy's defaults (no {@code from_*} set). */
    public boolean defaultLocations() {
      return fromHeaders.isEmpty() && fromParams.isEmpty() && fromCookies.isEmpty();
    }
  }

  /** Where a provider's keys come from. */
  public sealed interface KeySource {}

  /** {@code local_jwks}: the key set, read and parsed when the configuration was loaded. */
  public record LocalKeys(JWKSet jwks) implements KeySource {
    public LocalKeys {
      Objects.requireNonNull(jwks, "jwks");
    }
  }

  /**
   * A JWKS document's keys a token can be verified with (RSA, EC, and oct keys of at least 256
   * bits), the rule for {@code local_jwks} and for a fetched {@code remote_jwks} alike.
   *
   * @throws IllegalArgumentException when it is not a JWKS, holds a shorter oct key, or has no
   *     usable key; the message says which
   */
  public static JWKSet usableJwks(String text) {
    JWKSet set;
    try {
      set = JWKSet.parse(text);
    } catch (java.text.ParseException e) {
      throw new IllegalArgumentException("is not a valid JWKS: " + e.getMessage(), e);
    }
    List<com.nimbusds.jose.jwk.JWK> usable = new java.util.ArrayList<>();
    for (int i = 0; i < set.getKeys().size(); i++) {
      com.nimbusds.jose.jwk.JWK key = set.getKeys().get(i);
      if (key instanceof com.nimbusds.jose.jwk.OctetSequenceKey oct && oct.toByteArray().length < 32) {
        throw new IllegalArgumentException("key " + i + (key.getKeyID() == null ? "" : " (kid " + key.getKeyID()
            + ")") + " is an oct key of " + oct.toByteArray().length * 8
            + " bits; HMAC keys of at least 256 bits are supported");
      }
      String type = key.getKeyType() == null ? "" : key.getKeyType().getValue();
      if (type.equals("RSA") || type.equals("EC") || type.equals("oct")) {
        usable.add(key);
      }
    }
    if (usable.isEmpty()) {
      throw new IllegalArgumentException("Jwks doesn't have any valid public key (RSA, EC or oct)");
    }
    return new JWKSet(usable);
  }

  /** Envoy's default {@code cache_duration} of a remote JWKS: 10 minutes. */
  public static final Duration DEFAULT_CACHE_DURATION = Duration.ofMinutes(10);
  /** Envoy's default {@code async_fetch.failed_refetch_duration}: 1 second. */
  public static final Duration DEFAULT_FAILED_REFETCH = Duration.ofSeconds(1);

  /**
   * {@code remote_jwks}: the key set fetched with a {@code GET} of {@code http_uri} through one of
   * the edge's clusters, kept for {@code cache_duration}.
   *
   * @param uri {@code http_uri.uri} as configured (for messages)
   * @param scheme its scheme, {@code http} or {@code https} (the request's {@code :scheme})
   * @param authority its authority (the request's {@code host} / {@code :authority})
   * @param pathAndQuery its path and query, {@code /} when it has no path
   * @param cluster {@code http_uri.cluster}: the cluster the request goes to
   * @param timeout {@code http_uri.timeout}: the whole fetch, retries included; zero = none
   * @param cacheDuration {@code cache_duration}: how long a fetched key set is used
   * @param asyncFetch {@code async_fetch}, when set
   * @param retry {@code retry_policy}, when set (no retry otherwise)
   */
  public record RemoteKeys(
      String uri,
      String scheme,
      String authority,
      String pathAndQuery,
      String cluster,
      Duration timeout,
      Duration cacheDuration,
      Optional<AsyncFetch> asyncFetch,
      Optional<FetchRetry> retry) implements KeySource {
    public RemoteKeys {
      Objects.requireNonNull(uri, "uri");
      Objects.requireNonNull(cluster, "cluster");
      Objects.requireNonNull(asyncFetch, "asyncFetch");
      Objects.requireNonNull(retry, "retry");
    }
  }

  /**
   * {@code async_fetch}: the key set is fetched when the filter's configuration is built and
   * refreshed in the background; a fetched set is used until a newer one replaces it.
   *
   * @param fastListener whether the listener serves before the first fetch is done
   * @param failedRefetchDuration how long after a failed fetch the next one starts
   */
  public record AsyncFetch(boolean fastListener, Duration failedRefetchDuration) {}

  /**
   * {@code retry_policy} of a JWKS fetch (Envoy's core {@code RetryPolicy}, turned into a route
   * retry policy on {@code 5xx,gateway-error,connect-failure,reset}).
   *
   * @param numRetries retries after the first try ({@code num_retries}, default 1)
   * @param baseInterval {@code retry_back_off.base_interval} (default 1 s)
   * @param maxInterval {@code retry_back_off.max_interval} (default 10 × the base); also each try's timeout
   */
  public record FetchRetry(int numRetries, Duration baseInterval, Duration maxInterval) {}

  /** A {@code from_headers} entry: the header (lower case) and the prefix before the token, or empty. */
  public record TokenHeader(String name, String valuePrefix) {}

  /** A {@code claim_to_headers} entry; {@code claim} may name a nested claim with dots. */
  public record ClaimToHeader(String header, String claim) {}

  /** A {@code rules} entry: when {@code match} holds, {@code requirement} applies (empty: none). */
  public record Rule(Route.Match match, Optional<Requirement> requirement) {}

  /** A {@code JwtRequirement}. */
  public sealed interface Requirement {}

  /** {@code provider_name} or {@code provider_and_audiences}: {@code audiences} empty means the provider's. */
  public record ProviderRequirement(String provider, List<String> audiences) implements Requirement {
    public ProviderRequirement {
      audiences = List.copyOf(audiences);
    }
  }

  /** {@code requires_any}: one of them is enough. */
  public record RequiresAny(List<Requirement> requirements) implements Requirement {
    public RequiresAny {
      requirements = List.copyOf(requirements);
    }
  }

  /** {@code requires_all}: every one of them must hold. */
  public record RequiresAll(List<Requirement> requirements) implements Requirement {
    public RequiresAll {
      requirements = List.copyOf(requirements);
    }
  }

  /** {@code allow_missing}: no token passes, a token of any provider must verify. */
  public record AllowMissing() implements Requirement {}

  /** {@code allow_missing_or_failed}: every request passes; verified tokens are still forwarded. */
  public record AllowMissingOrFailed() implements Requirement {}

  /**
   * A route's {@code PerRouteConfig}: {@code disabled}, or the name of an entry of the filter's
   * {@code requirement_map} (looked up when the request comes: the route table does not know the filter's config).
   */
  public record PerRoute(boolean disabled, String requirementName) implements RouteFilterConfig {}
}
