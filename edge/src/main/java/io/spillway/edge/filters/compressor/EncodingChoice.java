package io.spillway.edge.filters.compressor;

import io.spillway.edge.router.RouteEntry;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;

/**
 * Which encoding a response gets when a chain has several compressors (Envoy's
 * {@code CompressorFilter::chooseEncoding}): the request's {@code Accept-Encoding} (RFC 9110
 * §12.5.3, q-values, {@code identity} and {@code *}) against the compressors of the chain that
 * would compress the response's media type. The highest q-value wins; on a tie the earlier entry
 * stays unless the later one's compressor has {@code choose_first}; {@code *} means the first
 * compressor of the chain; {@code q=0} rules an encoding out even under {@code *}. Among
 * compressors of one encoding only the first counts.
 *
 * <p>Every compressor of a stream computes the same decision from the same inputs (Envoy computes
 * it once and caches it in the stream's filter state), so each filter decides on its own.
 */
final class EncodingChoice {

  static final String IDENTITY = "identity";
  static final String WILDCARD = "*";

  /** How the decision was reached: which {@code header_*} counter it bumps. */
  enum Kind { VALID, IDENTITY, WILDCARD, NOT_VALID }

  /** @param encoding the chosen content coding, or {@code identity} */
  record Decision(String encoding, Kind kind) {}

  /**
   * One compressor entry of the chain, as the choice needs it.
   *
   * @param name the entry's name (a route may turn it off with a {@code FilterConfig})
   * @param encoding its content coding
   * @param contentTypes lower-cased media types it compresses
   * @param chooseFirst wins ties
   */
  record Candidate(String name, String encoding, Set<String> contentTypes, boolean chooseFirst) {}

  private EncodingChoice() {}

  /**
   * @param acceptEncoding the request's {@code Accept-Encoding} field value (repeated fields joined with commas)
   * @param contentType the response's {@code Content-Type}, or null
   * @param chain the chain's compressors in {@code http_filters} order
   * @param route the request's route, or null: compressors it turns off do not take part
   */
  static Decision choose(String acceptEncoding, String contentType, List<Candidate> chain, RouteEntry route) {
    String mediaType = contentType == null ? "" : mediaType(contentType);
    Map<String, Candidate> allowed = new LinkedHashMap<>();
    for (Candidate c : chain) {
      if (route != null && route.filterDisabled(c.name())) {
        continue;
      }
      if (!mediaType.isEmpty() && !c.contentTypes().isEmpty() && !c.contentTypes().contains(mediaType)) {
        continue;
      }
      allowed.putIfAbsent(c.encoding(), c);
    }
    List<String> names = new ArrayList<>();
    List<Float> qs = new ArrayList<>();
    for (String token : acceptEncoding.split(",")) {
      if (token.isEmpty()) {
        continue;
      }
      int semi = token.indexOf(';');
      String coding = (semi < 0 ? token : token.substring(0, semi)).trim().toLowerCase(Locale.ROOT);
      float q = 1;
      if (semi >= 0) {
        String params = token.substring(semi + 1);
        int eq = params.indexOf('=');
        if (eq >= 0 && params.substring(0, eq).trim().equalsIgnoreCase("q")) {
          try {
            q = Float.parseFloat(params.substring(eq + 1).trim());
          } catch (NumberFormatException e) {
            continue; // an unparseable q-value drops the token
          }
          if (Float.isNaN(q)) {
            continue;
          }
        }
      }
      names.add(coding);
      qs.add(q);
      if (q == 0) {
        allowed.remove(coding);
      }
    }
    if (names.isEmpty() || allowed.isEmpty()) {
      return new Decision(IDENTITY, Kind.NOT_VALID);
    }
    String choice = IDENTITY;
    float best = 0;
    for (int i = 0; i < names.size(); i++) {
      String coding = names.get(i);
      float q = qs.get(i);
      Candidate c = allowed.get(coding);
      if (c == null && !coding.equals(IDENTITY) && !coding.equals(WILDCARD)) {
        continue;
      }
      if (q > best || (q == best && c != null && c.chooseFirst())) {
        choice = coding;
        best = q;
      }
    }
    if (best <= 0) {
      return new Decision(IDENTITY, Kind.NOT_VALID);
    }
    if (choice.equals(IDENTITY)) {
      return new Decision(IDENTITY, Kind.IDENTITY);
    }
    if (choice.equals(WILDCARD)) {
      return new Decision(allowed.keySet().iterator().next(), Kind.WILDCARD);
    }
    return new Decision(choice, Kind.VALID);
  }

  /** A media type without its parameters, trimmed and lower-cased ({@code Text/HTML; charset=x} → {@code text/html}). */
  static String mediaType(String contentType) {
    int semi = contentType.indexOf(';');
    return (semi < 0 ? contentType : contentType.substring(0, semi)).trim().toLowerCase(Locale.ROOT);
  }
}
