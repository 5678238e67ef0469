package io.spillway.edge.filters.jwtauthn;

import com.nimbusds.jose.JOSEException;
import com.nimbusds.jose.JWSHeader;
import com.nimbusds.jose.jwk.Curve;
import com.nimbusds.jose.util.Base64URL;
import com.nimbusds.jose.util.JSONObjectUtils;
import io.spillway.edge.config.JwtAuthnConfig;
import java.nio.charset.StandardCharsets;
import java.text.ParseException;
import java.util.ArrayList;
import java.util.Base64;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * One provider's token check, compiled once from its configuration: the issuer, the audiences
 * (normalized as Envoy compares them), and where its keys come from — its {@code local_jwks}
 * compiled once, or its {@code remote_jwks} cache. Immutable; shared by every worker.
 * {@link #verify} follows jwt_verify_lib's order: parse, issuer, time ({@code nbf}, {@code exp}
 * with the clock skew, the lifetime), audience, then the key chosen by {@code kid} and
 * {@code alg} and the signature. Only that last step needs the keys, so only a token that passed
 * the others waits for a remote fetch (as in Envoy's authenticator).
 */
final class ProviderVerifier {
  private static final Set<String> ALGORITHMS = Set.of("RS256", "RS384", "RS512", "PS256", "PS384", "PS512",
      "ES256", "ES384", "ES512", "HS256", "HS384", "HS512");

  private final JwtAuthnConfig.Provider config;
  private final List<String> audiences;
  /** The {@code local_jwks} keys; null for a remote provider. */
  private final JwksKeys localKeys;
  /** The {@code remote_jwks} cache; null for a local provider. */
  private final RemoteJwksCache remote;

  /**
   * Where {@link #verify} gets a provider's keys: the key set to check the signature with,
   * {@link JwksKeys#FETCH_FAILED}, or null when they are not there yet (the request must wait for
   * a fetch; the lookup remembers which provider it waits for).
   */
  interface KeyLookup {
    JwksKeys keys(ProviderVerifier provider);
  }

  /** A verified token: its provider and its payload (the base64url segment and the parsed claims). */
  record Verified(ProviderVerifier provider, String payloadSegment, Map<String, Object> claims) {}

  /** What {@link #verify} found: a status, and the token when it is {@link JwtStatus#OK}. */
  record Outcome(JwtStatus status, Verified verified) {
    static Outcome failed(JwtStatus status) {
      return new Outcome(status, null);
    }
  }

  /** @param remote the provider's remote key cache, or null when its keys are {@code local_jwks} */
  ProviderVerifier(JwtAuthnConfig.Provider config, RemoteJwksCache remote) {
    this.config = config;
    List<String> normalized = new ArrayList<>();
    for (String a : config.audiences()) {
      normalized.add(normalizeAudience(a));
    }
    this.audiences = List.copyOf(normalized);
    this.remote = remote;
    this.localKeys = config.keys() instanceof JwtAuthnConfig.LocalKeys local ? JwksKeys.compile(local.jwks()) : null;
    if ((localKeys == null) == (remote == null)) {
      throw new IllegalArgumentException("provider " + config.name() + ": a remote cache for remote_jwks only");
    }
  }

  JwtAuthnConfig.Provider config() {
    return config;
  }

  /** The {@code local_jwks} keys, or null when the keys are remote. */
  JwksKeys localKeys() {
    return localKeys;
  }

  /** The {@code remote_jwks} cache, or null when the keys are local. */
  RemoteJwksCache remote() {
    return remote;
  }

  /**
   * Envoy's audience comparison: the scheme {@code http://} or {@code https://} and one trailing
   * slash do not count.
   */
  static String normalizeAudience(String audience) {
    String a = audience;
    if (a.startsWith("http://")) {
      a = a.substring(7);
    } else if (a.startsWith("https://")) {
      a = a.substring(8);
    }
    if (a.endsWith("/")) {
      a = a.substring(0, a.length() - 1);
    }
    return a;
  }

  /**
   * Checks one token.
   *
   * @param token the compact serialization
   * @param nowSeconds the wall clock, seconds since the epoch
   * @param audienceOverride {@code provider_and_audiences}' audiences, or empty for the provider's own
   * @param lookup where the keys come from; when it has none yet the outcome is
   *     {@link JwtStatus#KEYS_PENDING}
   */
  Outcome verify(String token, long nowSeconds, List<String> audienceOverride, KeyLookup lookup) {
    int dot1 = token.indexOf('.');
    int dot2 = dot1 < 0 ? -1 : token.indexOf('.', dot1 + 1);
    if (dot1 < 0 || dot2 < 0 || token.indexOf('.', dot2 + 1) >= 0) {
      return Outcome.failed(JwtStatus.BAD_FORMAT);
    }
    String headerSegment = token.substring(0, dot1);
    String payloadSegment = token.substring(dot1 + 1, dot2);
    String signatureSegment = token.substring(dot2 + 1);

    String headerJson = decode(headerSegment);
    if (headerJson == null) {
      return Outcome.failed(JwtStatus.HEADER_BAD_BASE64);
    }
    Map<String, Object> headerMap;
    try {
      headerMap = JSONObjectUtils.parse(headerJson);
    } catch (ParseException e) {
      return Outcome.failed(JwtStatus.HEADER_BAD_JSON);
    }
    if (!(headerMap.get("alg") instanceof String alg)) {
      return Outcome.failed(JwtStatus.HEADER_BAD_ALG);
    }
    if (!ALGORITHMS.contains(alg)) {
      return Outcome.failed(JwtStatus.HEADER_NOT_IMPLEMENTED_ALG);
    }
    Object kidValue = headerMap.get("kid");
    if (kidValue != null && !(kidValue instanceof String)) {
      return Outcome.failed(JwtStatus.HEADER_BAD_KID);
    }
    String kid = (String) kidValue;
    JWSHeader header;
    try {
      header = JWSHeader.parse(headerMap, new Base64URL(headerSegment));
    } catch (ParseException e) {
      return Outcome.failed(JwtStatus.HEADER_BAD_JSON);
    }

    String payloadJson = decode(payloadSegment);
    if (payloadJson == null) {
      return Outcome.failed(JwtStatus.PAYLOAD_BAD_BASE64);
    }
    Map<String, Object> claims;
    try {
      claims = JSONObjectUtils.parse(payloadJson);
    } catch (ParseException e) {
      return Outcome.failed(JwtStatus.PAYLOAD_BAD_JSON);
    }
    Object iss = claims.get("iss");
    if (iss != null && !(iss instanceof String)) {
      return Outcome.failed(JwtStatus.ISS_NOT_STRING);
    }
    long iat = time(claims.get("iat"));
    if (iat == NOT_INTEGER) {
      return Outcome.failed(JwtStatus.IAT_NOT_INTEGER);
    } else if (iat == OUT_OF_RANGE) {
      return Outcome.failed(JwtStatus.IAT_OUT_OF_RANGE);
    }
    long nbf = time(claims.get("nbf"));
    if (nbf == NOT_INTEGER) {
      return Outcome.failed(JwtStatus.NBF_NOT_INTEGER);
    } else if (nbf == OUT_OF_RANGE) {
      return Outcome.failed(JwtStatus.NBF_OUT_OF_RANGE);
    }
    long exp = time(claims.get("exp"));
    if (exp == NOT_INTEGER) {
      return Outcome.failed(JwtStatus.EXP_NOT_INTEGER);
    } else if (exp == OUT_OF_RANGE) {
      return Outcome.failed(JwtStatus.EXP_OUT_OF_RANGE);
    }
    List<String> tokenAudiences = audiences(claims.get("aud"));
    if (tokenAudiences == null) {
      return Outcome.failed(JwtStatus.AUD_NOT_STRING);
    }
    if (decodeBytes(signatureSegment) == null) {
      return Outcome.failed(JwtStatus.SIGNATURE_BAD_BASE64);
    }

    if (!config.issuer().isEmpty() && !config.issuer().equals(iss)) {
      return Outcome.failed(JwtStatus.UNKNOWN_ISSUER);
    }
    JwtStatus time = checkTime(nowSeconds, nbf, exp);
    if (time != JwtStatus.OK) {
      return Outcome.failed(time);
    }
    if (!audienceAllowed(tokenAudiences, audienceOverride)) {
      return Outcome.failed(JwtStatus.AUDIENCE_NOT_ALLOWED);
    }
    JwksKeys keys = lookup.keys(this);
    if (keys == null) {
      return Outcome.failed(JwtStatus.KEYS_PENDING);
    }
    if (keys == JwksKeys.FETCH_FAILED) {
      return Outcome.failed(JwtStatus.JWKS_FETCH_FAILED);
    }
    JwtStatus signature = checkSignature(keys.keys(), header, alg, kid,
        (headerSegment + "." + payloadSegment).getBytes(StandardCharsets.US_ASCII), new Base64URL(signatureSegment));
    if (signature != JwtStatus.OK) {
      return Outcome.failed(signature);
    }
    return new Outcome(JwtStatus.OK, new Verified(this, payloadSegment, claims));
  }

  /**
   * {@code nbf} and {@code exp} against now with the clock skew (jwt_verify_lib's rule: not yet
   * valid when {@code now + skew < nbf}, expired when {@code now > exp + skew}); then
   * {@code require_expiration} and {@code max_lifetime}, both refused as expired.
   */
  private JwtStatus checkTime(long now, long nbf, long exp) {
    long skew = config.clockSkewSeconds();
    if (nbf > 0 && now + skew < nbf) {
      return JwtStatus.NOT_YET_VALID;
    }
    if (exp > 0 && now > exp + skew) {
      return JwtStatus.EXPIRED;
    }
    if (exp == 0 && (config.requireExpiration() || config.maxLifetime().isPresent())) {
      return JwtStatus.EXPIRED;
    }
    if (config.maxLifetime().isPresent() && exp - now > config.maxLifetime().get().toSeconds() + skew) {
      return JwtStatus.EXPIRED;
    }
    return JwtStatus.OK;
  }

  private boolean audienceAllowed(List<String> tokenAudiences, List<String> override) {
    List<String> allowed = override.isEmpty() ? audiences : normalized(override);
    if (allowed.isEmpty()) {
      return true;
    }
    for (String a : tokenAudiences) {
      if (allowed.contains(normalizeAudience(a))) {
        return true;
      }
    }
    return false;
  }

  private static List<String> normalized(List<String> audiences) {
    List<String> out = new ArrayList<>(audiences.size());
    for (String a : audiences) {
      out.add(normalizeAudience(a));
    }
    return out;
  }

  /**
   * jwt_verify_lib's key choice: a key is a candidate unless its {@code kid} differs from the
   * token's (both set), its {@code alg} differs (when set), or its type does not fit the algorithm
   * (RSA for RS and PS, EC of the matching curve for ES, oct for HS). No candidate: kid or alg
   * mismatch; candidates and none verifies: verification fails.
   */
  private static JwtStatus checkSignature(List<JwksKeys.Key> keys, JWSHeader header, String alg, String kid,
      byte[] signingInput, Base64URL signature) {
    boolean candidate = false;
    for (int i = 0; i < keys.size(); i++) {
      JwksKeys.Key key = keys.get(i);
      if (kid != null && key.kid() != null && !kid.equals(key.kid())) {
        continue;
      }
      if (key.alg() != null && !key.alg().equals(alg)) {
        continue;
      }
      if (!fits(key, alg)) {
        continue;
      }
      candidate = true;
      try {
        if (key.verifier().verify(header, signingInput, signature)) {
          return JwtStatus.OK;
        }
      } catch (JOSEException e) {
        // a key that cannot check this signature: try the next one
      }
    }
    return candidate ? JwtStatus.VERIFICATION_FAIL : JwtStatus.KID_ALG_MISMATCH;
  }

  private static boolean fits(JwksKeys.Key key, String alg) {
    return switch (alg.substring(0, 2)) {
      case "RS", "PS" -> key.family().equals("RSA");
      case "HS" -> key.family().equals("oct");
      case "ES" -> key.family().equals("EC") && key.curve() != null
          && key.curve().equals(switch (alg) {
            case "ES256" -> Curve.P_256;
            case "ES384" -> Curve.P_384;
            default -> Curve.P_521;
          });
      default -> false;
    };
  }

  private static final long NOT_INTEGER = -1;
  private static final long OUT_OF_RANGE = -2;

  /** A NumericDate claim: 0 when absent, or {@link #NOT_INTEGER} / {@link #OUT_OF_RANGE}. */
  private static long time(Object value) {
    if (value == null) {
      return 0;
    }
    if (!(value instanceof Number n)) {
      return NOT_INTEGER;
    }
    double d = n.doubleValue();
    if (d < 0 || d >= 9.2e18) {
      return OUT_OF_RANGE;
    }
    return n.longValue();
  }

  /** {@code aud}: a string or a list of strings; absent is empty; null for any other type. */
  private static List<String> audiences(Object value) {
    if (value == null) {
      return List.of();
    }
    if (value instanceof String s) {
      return List.of(s);
    }
    if (value instanceof List<?> list) {
      List<String> out = new ArrayList<>(list.size());
      for (Object o : list) {
        if (!(o instanceof String s)) {
          return null;
        }
        out.add(s);
      }
      return out;
    }
    return null;
  }

  private static String decode(String segment) {
    byte[] bytes = decodeBytes(segment);
    return bytes == null ? null : new String(bytes, StandardCharsets.UTF_8);
  }

  private static byte[] decodeBytes(String segment) {
    try {
      return Base64.getUrlDecoder().decode(segment);
    } catch (IllegalArgumentException e) {
      return null;
    }
  }

  @Override
  public String toString() {
    return "provider " + config.name() + " (" + (localKeys == null ? "remote_jwks" : localKeys.size() + " keys")
        + ", issuer " + config.issuer() + ")";
  }
}
