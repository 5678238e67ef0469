package io.spillway.edge.config;

import com.nimbusds.jose.jwk.JWKSet;
import io.envoyproxy.envoy.config.core.v3.BackoffStrategy;
import io.envoyproxy.envoy.config.core.v3.HttpUri;
import io.envoyproxy.envoy.extensions.filters.http.jwt_authn.v3.JwksAsyncFetch;
import io.envoyproxy.envoy.extensions.filters.http.jwt_authn.v3.JwtAuthentication;
import io.envoyproxy.envoy.extensions.filters.http.jwt_authn.v3.JwtClaimToHeader;
import io.envoyproxy.envoy.extensions.filters.http.jwt_authn.v3.JwtHeader;
import io.envoyproxy.envoy.extensions.filters.http.jwt_authn.v3.JwtProvider;
import io.envoyproxy.envoy.extensions.filters.http.jwt_authn.v3.JwtRequirement;
import io.envoyproxy.envoy.extensions.filters.http.jwt_authn.v3.PerRouteConfig;
import io.envoyproxy.envoy.extensions.filters.http.jwt_authn.v3.ProviderWithAudiences;
import io.envoyproxy.envoy.extensions.filters.http.jwt_authn.v3.RemoteJwks;
import io.envoyproxy.envoy.extensions.filters.http.jwt_authn.v3.RequirementRule;
import io.spillway.edge.config.JwtAuthnConfig.Requirement;
import java.io.IOException;
import java.io.InputStream;
import java.net.URI;
import java.net.URISyntaxException;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.TreeMap;
import java.util.function.Predicate;

/**
 * {@code envoy.filters.http.jwt_authn} ({@code JwtAuthentication}) and its per-route
 * {@code PerRouteConfig} into {@link JwtAuthnConfig}, with Envoy's validation rules. Keys come
 * from {@code local_jwks} (a JWKS document: inline, a file or an environment variable, read and
 * parsed here, once) or {@code remote_jwks} (fetched at run time through a configured cluster).
 * Refused, because they would change what the filter does and are not implemented:
 * {@code subjects}, the metadata outputs
 * ({@code payload_in_metadata}, {@code header_in_metadata}, {@code failed_status_in_metadata},
 * {@code normalize_payload_in_metadata}), {@code jwt_cache_config}, {@code clear_route_cache} and
 * {@code filter_state_rules}.
 */
final class JwtAuthnTranslator {

  private static final SupportedFields AUTHENTICATION = SupportedFields.of(JwtAuthentication.getDescriptor(),
      "providers", "rules", "requirement_map", "bypass_cors_preflight", "strip_failure_response", "stat_prefix");
  private static final SupportedFields PROVIDER = SupportedFields.of(JwtProvider.getDescriptor(), "issuer",
      "audiences", "local_jwks", "remote_jwks", "forward", "from_headers", "from_params", "from_cookies", "forward_payload_header",
      "pad_forward_payload_header", "claim_to_headers", "clock_skew_seconds", "max_lifetime", "require_expiration");
  private static final SupportedFields REMOTE_JWKS = SupportedFields.of(RemoteJwks.getDescriptor(), "http_uri",
      "cache_duration", "async_fetch", "retry_policy");
  private static final SupportedFields HTTP_URI = SupportedFields.of(HttpUri.getDescriptor(), "uri", "cluster",
      "timeout");
  private static final SupportedFields ASYNC_FETCH = SupportedFields.of(JwksAsyncFetch.getDescriptor(),
      "fast_listener", "failed_refetch_duration");
  private static final SupportedFields RETRY_POLICY = SupportedFields.of(
      io.envoyproxy.envoy.config.core.v3.RetryPolicy.getDescriptor(), "retry_back_off", "num_retries");
  private static final SupportedFields BACK_OFF = SupportedFields.of(BackoffStrategy.getDescriptor(),
      "base_interval", "max_interval");
  private static final SupportedFields HEADER = SupportedFields.of(JwtHeader.getDescriptor(), "name", "value_prefix");
  private static final SupportedFields CLAIM = SupportedFields.of(JwtClaimToHeader.getDescriptor(), "header_name",
      "claim_name");
  private static final SupportedFields RULE = SupportedFields.of(RequirementRule.getDescriptor(), "match", "requires",
      "requirement_name");
  private static final SupportedFields PER_ROUTE = SupportedFields.of(PerRouteConfig.getDescriptor(), "disabled",
      "requirement_name");

  private JwtAuthnTranslator() {}

  /**
   * @param knownCluster whether a cluster of that name is configured ({@code remote_jwks.http_uri.cluster})
   * @param path the path of the filter's {@code typed_config}
   */
  static JwtAuthnConfig translate(JwtAuthentication a, Predicate<String> knownCluster, FieldPath path)
      throws ConfigException {
    return translate(a, knownCluster, path, DataSources.system());
  }

  static JwtAuthnConfig translate(JwtAuthentication a, Predicate<String> knownCluster, FieldPath path,
      DataSources sources) throws ConfigException {
    AUTHENTICATION.check(a, path);
    Map<String, JwtAuthnConfig.Provider> providers = new TreeMap<>();
    for (Map.Entry<String, JwtProvider> e : new TreeMap<>(a.getProvidersMap()).entrySet()) {
      providers.put(e.getKey(), provider(e.getKey(), e.getValue(), path.field("providers").key(e.getKey()), sources,
          knownCluster));
    }
    Map<String, Requirement> requirementMap = new TreeMap<>();
    for (Map.Entry<String, JwtRequirement> e : new TreeMap<>(a.getRequirementMapMap()).entrySet()) {
      requirementMap.put(e.getKey(), requirement(e.getValue(), path.field("requirement_map").key(e.getKey()),
          providers));
    }
    List<JwtAuthnConfig.Rule> rules = new ArrayList<>();
    for (int i = 0; i < a.getRulesCount(); i++) {
      FieldPath at = path.field("rules").index(i);
      RequirementRule r = a.getRules(i);
      RULE.check(r, at);
      if (!r.hasMatch()) {
        throw new ConfigException(at.field("match"), "match is required");
      }
      Route.Match match = MatchTranslator.translate(r.getMatch(), at.field("match"));
      Optional<Requirement> requirement = switch (r.getRequirementTypeCase()) {
        case REQUIRES -> Optional.of(requirement(r.getRequires(), at.field("requires"), providers));
        case REQUIREMENT_NAME -> {
          Requirement named = requirementMap.get(r.getRequirementName());
          if (named == null) {
            throw new ConfigException(at.field("requirement_name"), "\"" + r.getRequirementName()
                + "\" is not in requirement_map");
          }
          yield Optional.of(named);
        }
        // Envoy: a rule without a requirement lets the matching requests through unverified.
        default -> Optional.empty();
      };
      rules.add(new JwtAuthnConfig.Rule(match, requirement));
    }
    return new JwtAuthnConfig(providers, rules, requirementMap, a.getBypassCorsPreflight(),
        a.getStripFailureResponse(), a.getStatPrefix());
  }

  /** A route's {@code PerRouteConfig}: {@code disabled: true} or a {@code requirement_name}. */
  static JwtAuthnConfig.PerRoute perRoute(PerRouteConfig p, FieldPath path) throws ConfigException {
    PER_ROUTE.check(p, path);
    return switch (p.getRequirementSpecifierCase()) {
      case DISABLED -> {
        if (!p.getDisabled()) {
          throw new ConfigException(path.field("disabled"), "must be true when set");
        }
        yield new JwtAuthnConfig.PerRoute(true, "");
      }
      case REQUIREMENT_NAME -> {
        if (p.getRequirementName().isEmpty()) {
          throw new ConfigException(path.field("requirement_name"), "must not be empty");
        }
        yield new JwtAuthnConfig.PerRoute(false, p.getRequirementName());
      }
      default -> throw new ConfigException(path, "one of disabled or requirement_name is required");
    };
  }

  private static JwtAuthnConfig.Provider provider(String name, JwtProvider p, FieldPath path, DataSources sources,
      Predicate<String> knownCluster) throws ConfigException {
    PROVIDER.check(p, path);
    JwtAuthnConfig.KeySource keys = switch (p.getJwksSourceSpecifierCase()) {
      case LOCAL_JWKS -> new JwtAuthnConfig.LocalKeys(
          jwks(sources.read(p.getLocalJwks(), path.field("local_jwks")), path.field("local_jwks")));
      case REMOTE_JWKS -> remote(name, p.getRemoteJwks(), path.field("remote_jwks"), knownCluster);
      default -> throw new ConfigException(path, "one of remote_jwks or local_jwks is required");
    };
    List<JwtAuthnConfig.TokenHeader> headers = new ArrayList<>();
    for (int i = 0; i < p.getFromHeadersCount(); i++) {
      FieldPath at = path.field("from_headers").index(i);
      JwtHeader h = p.getFromHeaders(i);
      HEADER.check(h, at);
      headers.add(new JwtAuthnConfig.TokenHeader(HeaderMutationTranslator.headerName(h.getName(), at.field("name")),
          h.getValuePrefix()));
    }
    for (int i = 0; i < p.getFromParamsCount(); i++) {
      if (p.getFromParams(i).isEmpty()) {
        throw new ConfigException(path.field("from_params").index(i), "must not be empty");
      }
    }
    for (int i = 0; i < p.getFromCookiesCount(); i++) {
      if (p.getFromCookies(i).isEmpty()) {
        throw new ConfigException(path.field("from_cookies").index(i), "must not be empty");
      }
    }
    String payloadHeader = p.getForwardPayloadHeader().isEmpty() ? ""
        : HeaderMutationTranslator.headerName(p.getForwardPayloadHeader(), path.field("forward_payload_header"));
    List<JwtAuthnConfig.ClaimToHeader> claims = new ArrayList<>();
    for (int i = 0; i < p.getClaimToHeadersCount(); i++) {
      FieldPath at = path.field("claim_to_headers").index(i);
      JwtClaimToHeader c = p.getClaimToHeaders(i);
      CLAIM.check(c, at);
      if (c.getClaimName().isEmpty()) {
        throw new ConfigException(at.field("claim_name"), "claim_name is required");
      }
      claims.add(new JwtAuthnConfig.ClaimToHeader(
          HeaderMutationTranslator.headerName(c.getHeaderName(), at.field("header_name")), c.getClaimName()));
    }
    Optional<Duration> maxLifetime = p.hasMaxLifetime()
        ? Optional.of(ProtoValues.duration(true, p.getMaxLifetime(), path.field("max_lifetime"), Duration.ZERO))
        : Optional.empty();
    long skew = p.getClockSkewSeconds() == 0 ? JwtAuthnConfig.DEFAULT_CLOCK_SKEW_SECONDS
        : Integer.toUnsignedLong(p.getClockSkewSeconds());
    return new JwtAuthnConfig.Provider(name, p.getIssuer(), p.getAudiencesList(), keys, headers,
        p.getFromParamsList(), p.getFromCookiesList(), p.getForward(), payloadHeader, p.getPadForwardPayloadHeader(),
        claims, skew, maxLifetime, p.getRequireExpiration());
  }

  /** A JWKS document; it must hold at least one key with which a token can be verified. */
  static JWKSet jwks(PemData data, FieldPath path) throws ConfigException {
    String text;
    try (InputStream in = data.open()) {
      text = new String(in.readAllBytes(), StandardCharsets.UTF_8);
    } catch (IOException e) {
      throw new ConfigException(path, "cannot read " + data.origin() + ": " + e.getMessage(), e);
    }
    try {
      return JwtAuthnConfig.usableJwks(text);
    } catch (IllegalArgumentException e) {
      String reason = e.getMessage();
      throw new ConfigException(path, data.origin() + (reason.startsWith("is not") ? " " : ": ") + reason, e);
    }
  }

  /**
   * {@code remote_jwks}, with Envoy's validation: {@code http_uri} with an {@code http} or
   * {@code https} URI, a configured cluster and a timeout; {@code cache_duration} from 1 ms;
   * {@code retry_policy} with {@code base_interval} required in a back-off and
   * {@code max_interval} not below it. Of the core retry policy, {@code retry_on},
   * {@code retry_priority}, {@code retry_host_predicate} and
   * {@code host_selection_retry_max_attempts} are refused: Envoy does not apply them to a JWKS
   * fetch (its conditions are fixed), so setting them would promise what does not happen.
   */
  private static JwtAuthnConfig.RemoteKeys remote(String provider, RemoteJwks r, FieldPath path,
      Predicate<String> knownCluster) throws ConfigException {
    REMOTE_JWKS.check(r, path);
    FieldPath uriPath = path.field("http_uri");
    if (!r.hasHttpUri()) {
      throw new ConfigException(uriPath, "http_uri is required");
    }
    HttpUri http = r.getHttpUri();
    HTTP_URI.check(http, uriPath);
    if (http.getUri().isEmpty()) {
      throw new ConfigException(uriPath.field("uri"), "uri is required");
    }
    URI uri;
    try {
      uri = new URI(http.getUri());
    } catch (URISyntaxException e) {
      uri = null;
    }
    if (uri == null || uri.getScheme() == null || uri.getRawAuthority() == null || uri.getHost() == null
        || !(uri.getScheme().equalsIgnoreCase("http") || uri.getScheme().equalsIgnoreCase("https"))) {
      throw new ConfigException(uriPath.field("uri"), "Provider '" + provider + "' has an invalid URI: '"
          + http.getUri() + "' (an http:// or https:// URI with a host is required)");
    }
    if (http.getCluster().isEmpty()) {
      throw new ConfigException(uriPath.field("cluster"), "cluster is required");
    }
    if (!knownCluster.test(http.getCluster())) {
      throw new ConfigException(uriPath.field("cluster"),
          "unknown cluster \"" + http.getCluster() + "\" (no cluster of that name is configured)");
    }
    if (!http.hasTimeout()) {
      throw new ConfigException(uriPath.field("timeout"), "timeout is required");
    }
    Duration timeout = ProtoValues.duration(true, http.getTimeout(), uriPath.field("timeout"), Duration.ZERO);
    if (timeout.getSeconds() >= 4_294_967_296L) {
      throw new ConfigException(uriPath.field("timeout"), "must be less than 4294967296s");
    }
    Duration cache = JwtAuthnConfig.DEFAULT_CACHE_DURATION;
    if (r.hasCacheDuration()) {
      cache = ProtoValues.duration(true, r.getCacheDuration(), path.field("cache_duration"), cache);
      if (cache.compareTo(Duration.ofMillis(1)) < 0 || cache.getSeconds() >= 9_000_000_000L) {
        throw new ConfigException(path.field("cache_duration"), "must be at least 1ms and less than 9000000000s");
      }
    }
    Optional<JwtAuthnConfig.AsyncFetch> async = Optional.empty();
    if (r.hasAsyncFetch()) {
      FieldPath at = path.field("async_fetch");
      JwksAsyncFetch a = r.getAsyncFetch();
      ASYNC_FETCH.check(a, at);
      Duration failed = ProtoValues.duration(a.hasFailedRefetchDuration(), a.getFailedRefetchDuration(),
          at.field("failed_refetch_duration"), JwtAuthnConfig.DEFAULT_FAILED_REFETCH);
      async = Optional.of(new JwtAuthnConfig.AsyncFetch(a.getFastListener(), failed));
    }
    Optional<JwtAuthnConfig.FetchRetry> retry = Optional.empty();
    if (r.hasRetryPolicy()) {
      retry = Optional.of(retry(r.getRetryPolicy(), path.field("retry_policy")));
    }
    String pathAndQuery = uri.getRawPath() == null || uri.getRawPath().isEmpty() ? "/" : uri.getRawPath();
    if (uri.getRawQuery() != null) {
      pathAndQuery += "?" + uri.getRawQuery();
    }
    return new JwtAuthnConfig.RemoteKeys(http.getUri(), uri.getScheme().toLowerCase(java.util.Locale.ROOT),
        uri.getRawAuthority(), pathAndQuery, http.getCluster(), timeout, cache, async, retry);
  }

  /** Envoy's {@code convertCoreToRouteRetryPolicy}: 1 retry, base 1 s, max 10 × base unless set. */
  private static JwtAuthnConfig.FetchRetry retry(io.envoyproxy.envoy.config.core.v3.RetryPolicy p, FieldPath path)
      throws ConfigException {
    RETRY_POLICY.check(p, path);
    int retries = p.hasNumRetries() ? ProtoValues.uint32(p.getNumRetries().getValue(), path.field("num_retries"), 0)
        : 1;
    Duration base = Duration.ofSeconds(1);
    Duration max = base.multipliedBy(10);
    if (p.hasRetryBackOff()) {
      FieldPath at = path.field("retry_back_off");
      BackoffStrategy b = p.getRetryBackOff();
      BACK_OFF.check(b, at);
      if (!b.hasBaseInterval()) {
        throw new ConfigException(at.field("base_interval"), "base_interval is required");
      }
      base = ProtoValues.duration(true, b.getBaseInterval(), at.field("base_interval"), base);
      if (base.compareTo(Duration.ofMillis(1)) < 0) {
        throw new ConfigException(at.field("base_interval"), "must be at least 1ms");
      }
      max = ProtoValues.positiveDuration(b.hasMaxInterval(), b.getMaxInterval(), at.field("max_interval"),
          base.multipliedBy(10));
      if (max.toMillis() < base.toMillis()) {
        throw new ConfigException(at.field("max_interval"),
            "max_interval must be greater than or equal to the base_interval");
      }
    }
    return new JwtAuthnConfig.FetchRetry(retries, base, max);
  }

  private static Requirement requirement(JwtRequirement r, FieldPath path, Map<String, JwtAuthnConfig.Provider> providers)
      throws ConfigException {
    return switch (r.getRequiresTypeCase()) {
      case PROVIDER_NAME -> new JwtAuthnConfig.ProviderRequirement(
          known(r.getProviderName(), path.field("provider_name"), providers), List.of());
      case PROVIDER_AND_AUDIENCES -> {
        ProviderWithAudiences pa = r.getProviderAndAudiences();
        FieldPath at = path.field("provider_and_audiences");
        yield new JwtAuthnConfig.ProviderRequirement(known(pa.getProviderName(), at.field("provider_name"), providers),
            pa.getAudiencesList());
      }
      case REQUIRES_ANY -> new JwtAuthnConfig.RequiresAny(list(r.getRequiresAny().getRequirementsList(),
          path.field("requires_any").field("requirements"), providers));
      case REQUIRES_ALL -> new JwtAuthnConfig.RequiresAll(list(r.getRequiresAll().getRequirementsList(),
          path.field("requires_all").field("requirements"), providers));
      case ALLOW_MISSING -> new JwtAuthnConfig.AllowMissing();
      case ALLOW_MISSING_OR_FAILED -> new JwtAuthnConfig.AllowMissingOrFailed();
      default -> throw new ConfigException(path, "one of provider_name, provider_and_audiences, requires_any,"
          + " requires_all, allow_missing or allow_missing_or_failed is required");
    };
  }

  private static List<Requirement> list(List<JwtRequirement> items, FieldPath path,
      Map<String, JwtAuthnConfig.Provider> providers) throws ConfigException {
    if (items.size() < 2) {
      throw new ConfigException(path, "at least 2 requirements are required, not " + items.size());
    }
    List<Requirement> out = new ArrayList<>();
    for (int i = 0; i < items.size(); i++) {
      out.add(requirement(items.get(i), path.index(i), providers));
    }
    return out;
  }

  private static String known(String name, FieldPath path, Map<String, JwtAuthnConfig.Provider> providers)
      throws ConfigException {
    if (!providers.containsKey(name)) {
      throw new ConfigException(path, "\"" + name + "\" is not in providers");
    }
    return name;
  }
}
