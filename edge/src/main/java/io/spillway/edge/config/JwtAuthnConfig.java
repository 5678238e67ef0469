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
   * @param jwks the {@code local_jwks} key set, parsed when the configuration was loaded
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
      JWKSet jwks,
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
      Objects.requireNonNull(jwks, "jwks");
    }

    /** Whether the token locations are Envoy's defaults (no {@code from_*} set). */
    public boolean defaultLocations() {
      return fromHeaders.isEmpty() && fromParams.isEmpty() && fromCookies.isEmpty();
    }
  }

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
