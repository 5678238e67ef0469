package io.spillway.edge.config;

import java.util.List;
import java.util.Objects;
import java.util.Optional;

/**
 * A listener's {@code common_tls_context.validation_context}: how a client certificate is
 * verified. The chain against {@code trustedCa} (when set), then the SANs against {@code
 * subjectAltNames} (when any), then the certificate's hash against {@code certificateSha256} and
 * {@code spkiSha256} (when either is set; a value of either list accepts it), as Envoy's default
 * validator does in that order.
 *
 * @param trustedCa {@code trusted_ca}; empty: the chain is not verified
 * @param subjectAltNames {@code match_typed_subject_alt_names} and the legacy {@code
 *     match_subject_alt_names}; only with {@code trustedCa} (Envoy refuses them without)
 * @param certificateSha256 {@code verify_certificate_hash}: SHA-256 of the DER certificate, lower-case hex
 * @param spkiSha256 {@code verify_certificate_spki}: SHA-256 of the DER SubjectPublicKeyInfo, lower-case hex
 */
public record CertificateValidation(Optional<PemData> trustedCa, List<SanMatcher> subjectAltNames,
    List<String> certificateSha256, List<String> spkiSha256) {

  /** No validation context: a client certificate is neither asked for nor verified. */
  public static final CertificateValidation NONE =
      new CertificateValidation(Optional.empty(), List.of(), List.of(), List.of());

  public CertificateValidation {
    Objects.requireNonNull(trustedCa, "trustedCa");
    subjectAltNames = List.copyOf(subjectAltNames);
    certificateSha256 = List.copyOf(certificateSha256);
    spkiSha256 = List.copyOf(spkiSha256);
    if (!subjectAltNames.isEmpty() && trustedCa.isEmpty()) {
      throw new IllegalArgumentException("SAN matching needs a trusted CA");
    }
  }

  /** Only a trusted CA. */
  public static CertificateValidation trustedCa(PemData ca) {
    return new CertificateValidation(Optional.of(ca), List.of(), List.of(), List.of());
  }

  /** Whether a client certificate is verified at all (a validation context with something to check). */
  public boolean verifies() {
    return trustedCa.isPresent() || hasCertificateChecks();
  }

  /**
   * Whether there is a check beyond the chain: SAN matchers or hashes. With one, Envoy requires a
   * client certificate even without {@code require_client_certificate}.
   */
  public boolean hasCertificateChecks() {
    return !subjectAltNames.isEmpty() || !certificateSha256.isEmpty() || !spkiSha256.isEmpty();
  }
}
