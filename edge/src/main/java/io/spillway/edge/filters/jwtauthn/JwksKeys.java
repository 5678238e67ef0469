package io.spillway.edge.filters.jwtauthn;

import com.nimbusds.jose.JOSEException;
import com.nimbusds.jose.JWSVerifier;
import com.nimbusds.jose.crypto.ECDSAVerifier;
import com.nimbusds.jose.crypto.MACVerifier;
import com.nimbusds.jose.crypto.RSASSAVerifier;
import com.nimbusds.jose.jwk.Curve;
import com.nimbusds.jose.jwk.ECKey;
import com.nimbusds.jose.jwk.JWK;
import com.nimbusds.jose.jwk.JWKSet;
import com.nimbusds.jose.jwk.OctetSequenceKey;
import com.nimbusds.jose.jwk.RSAKey;
import java.util.ArrayList;
import java.util.List;

/**
 * One provider's key set ready to verify with: per JWKS key its {@code kid}, {@code alg}, family
 * and curve, and a Nimbus verifier. Immutable, shared by every worker: a {@code local_jwks} set is
 * compiled once with the filter's configuration, a {@code remote_jwks} set once per fetch.
 * {@link #FETCH_FAILED} stands for "the fetch failed": a request that waited on it is refused.
 */
final class JwksKeys {

  /** A key: its {@code kid} and {@code alg} (null when absent), family ({@code RSA}, {@code EC}, {@code oct}), verifier. */
  record Key(String kid, String alg, String family, Curve curve, JWSVerifier verifier) {}

  /** Not a key set: the remote fetch this request waited for failed. */
  static final JwksKeys FETCH_FAILED = new JwksKeys(List.of());

  private final List<Key> keys;

  private JwksKeys(List<Key> keys) {
    this.keys = keys;
  }

  /** Compiles the keys Nimbus can verify with; others are left out. */
  static JwksKeys compile(JWKSet set) {
    List<Key> compiled = new ArrayList<>();
    for (JWK jwk : set.getKeys()) {
      Key key = compile(jwk);
      if (key != null) {
        compiled.add(key);
      }
    }
    return new JwksKeys(List.copyOf(compiled));
  }

  private static Key compile(JWK jwk) {
    String alg = jwk.getAlgorithm() == null ? null : jwk.getAlgorithm().getName();
    try {
      return switch (jwk) {
        case RSAKey rsa -> new Key(jwk.getKeyID(), alg, "RSA", null, new RSASSAVerifier(rsa));
        case ECKey ec -> new Key(jwk.getKeyID(), alg, "EC", ec.getCurve(), new ECDSAVerifier(ec));
        case OctetSequenceKey oct -> new Key(jwk.getKeyID(), alg, "oct", null, new MACVerifier(oct));
        default -> null;
      };
    } catch (JOSEException e) {
      return null; // the JWKS rule refuses keys Nimbus cannot use; nothing to verify with here
    }
  }

  List<Key> keys() {
    return keys;
  }

  int size() {
    return keys.size();
  }
}
