package io.spillway.edge.config;

import com.nimbusds.jose.jwk.JWK;
import com.nimbusds.jose.jwk.JWKSet;
import io.envoyproxy.envoy.extensions.filters.http.jwt_authn.v3.JwtAuthentication;
import io.envoyproxy.envoy.extensions.filters.http.jwt_authn.v3.JwtClaimToHeader;
import io.envoyproxy.envoy.extensions.filters.http.jwt_authn.v3.JwtHeader;
import io.envoyproxy.envoy.extensions.filters.http.jwt_authn.v3.JwtProvider;
import io.envoyproxy.envoy.extensions.filters.http.jwt_authn.v3.JwtRequirement;
import io.envoyproxy.envoy.extensions.filters.http.jwt_authn.v3.PerRouteConfig;
import io.envoyproxy.envoy.extensions.filters.http.jwt_authn.v3.ProviderWithAudiences;
import io.envoyproxy.envoy.extensions.filters.http.jwt_authn.v3.RequirementRule;
import io.spillway.edge.config.JwtAuthnConfig.Requirement;
import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.text.ParseException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.TreeMap;

/**
 * {@code envoy.filters.http.jwt_authn} ({@code JwtAuthentication}) and its per-route
 * {@code PerRouteConfig} into {@link JwtAuthnConfig}, with Envoy's validation rules. Keys come
 * from {@code local_jwks} only (a JWKS document: inline, a file or an environment variable, read
 * and parsed here, once). Refused, because they would change what the filter does and are not
 * implemented: {@code remote_jwks}, {@code subjects}, the metadata outputs
 * ({@code payload_in_metadata}, {@code header_in_metadata}, {@code failed_status_in_metadata},
 * {@code normalize_payload_in_metadata}), {@code jwt_cache_config}, {@code clear_route_cache} and
 * {@code filter_state_rules}.
 */
final class JwtAuthnTranslator {

  private static final SupportedFields AUTHENTICATION = SupportedFields.of(JwtAuthentication.getDescriptor(),
      "providers", "rules", "requirement_map", "bypass_cors_preflight", "strip_failure_response", "stat_prefix");
  private static final SupportedFields PROVIDER = SupportedFields.of(JwtProvider.getDescriptor(), "issuer",
      "audiences", "local_jwks", "forward", "from_headers", "from_params", "from_cookies", "forward_payload_header",
      "pad_forward_payload_header", "claim_to_headers", "clock_skew_seconds", "max_lifetime", "require_expiration");
  private static final SupportedFields HEADER = SupportedFields.of(JwtHeader.getDescriptor(), "name", "value_prefix");
  private static final SupportedFields CLAIM = SupportedFields.of(JwtClaimToHeader.getDescriptor(), "header_name",
      "claim_name");
  private static final SupportedFields RULE = SupportedFields.of(RequirementRule.getDescriptor(), "match", "requires",
      "requirement_name");
  private static final SupportedFields PER_ROUTE = SupportedFields.of(PerRouteConfig.getDescriptor(), "disabled",
      "requirement_name");

  private JwtAuthnTranslator() {}

  static JwtAuthnConfig translate(JwtAuthentication a, FieldPath path) throws ConfigException {
    return translate(a, path, DataSources.system());
  }

  static JwtAuthnConfig translate(JwtAuthentication a, FieldPath path, DataSources sources) throws ConfigException {
    AUTHENTICATION.check(a, path);
    Map<String, JwtAuthnConfig.Provider> providers = new TreeMap<>();
    for (Map.Entry<String, JwtProvider> e : new TreeMap<>(a.getProvidersMap()).entrySet()) {
      providers.put(e.getKey(), provider(e.getKey(), e.getValue(), path.field("providers").key(e.getKey()), sources));
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

  private static JwtAuthnConfig.Provider provider(String name, JwtProvider p, FieldPath path, DataSources sources)
      throws ConfigException {
    if (p.hasRemoteJwks()) {
      throw new ConfigException(path.field("remote_jwks"), "remote_jwks is not supported (use local_jwks)");
    }
    PROVIDER.check(p, path);
    if (!p.hasLocalJwks()) {
      throw new ConfigException(path, "local_jwks is required (one of remote_jwks or local_jwks, and remote_jwks"
          + " is not supported)");
    }
    JWKSet jwks = jwks(sources.read(p.getLocalJwks(), path.field("local_jwks")), path.field("local_jwks"));
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
    return new JwtAuthnConfig.Provider(name, p.getIssuer(), p.getAudiencesList(), jwks, headers,
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
    JWKSet set;
    try {
      set = JWKSet.parse(text);
    } catch (ParseException e) {
      throw new ConfigException(path, data.origin() + " is not a valid JWKS: " + e.getMessage(), e);
    }
    List<JWK> usable = new ArrayList<>();
    for (int i = 0; i < set.getKeys().size(); i++) {
      JWK key = set.getKeys().get(i);
      if (key instanceof com.nimbusds.jose.jwk.OctetSequenceKey oct && oct.toByteArray().length < 32) {
        throw new ConfigException(path, data.origin() + ": key " + i + (key.getKeyID() == null ? ""
            : " (kid " + key.getKeyID() + ")") + " is an oct key of " + oct.toByteArray().length * 8
            + " bits; HMAC keys of at least 256 bits are supported");
      }
      if (key.getKeyType() != null && (key.getKeyType().getValue().equals("RSA") || key.getKeyType().getValue()
          .equals("EC") || key.getKeyType().getValue().equals("oct"))) {
        usable.add(key);
      }
    }
    if (usable.isEmpty()) {
      throw new ConfigException(path, data.origin() + ": Jwks doesn't have any valid public key (RSA, EC or oct)");
    }
    return new JWKSet(usable);
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
