package io.spillway.edge.filters.compressor;

import java.util.ArrayList;
import java.util.List;

/**
 * Comma-separated header values the compressor and decompressor filters read and rewrite, by
 * Envoy's rules: {@code Cache-Control} directives, {@code Content-Encoding} codings and
 * {@code Accept-Encoding} entries (RFC 9110 §5.6.1 lists; tokens compared case-insensitively).
 */
public final class ContentCodings {

  private ContentCodings() {}

  /** Whether a comma-separated value holds {@code token} (case-insensitive, whitespace trimmed). */
  public static boolean hasToken(String value, String token) {
    if (value == null) {
      return false;
    }
    int start = 0;
    while (start <= value.length()) {
      int comma = value.indexOf(',', start);
      int end = comma < 0 ? value.length() : comma;
      if (value.substring(start, end).trim().equalsIgnoreCase(token)) {
        return true;
      }
      if (comma < 0) {
        return false;
      }
      start = comma + 1;
    }
    return false;
  }

  /** The first coding of a {@code Content-Encoding} value, trimmed (Envoy matches this one). */
  public static String first(String contentEncoding) {
    int comma = contentEncoding.indexOf(',');
    return (comma < 0 ? contentEncoding : contentEncoding.substring(0, comma)).trim();
  }

  /** The codings after the first, trimmed; "" when there was one only (the header then goes). */
  public static String withoutFirst(String contentEncoding) {
    String all = contentEncoding.trim();
    int comma = all.indexOf(',');
    return comma < 0 ? "" : all.substring(comma + 1).trim();
  }

  /**
   * {@code Accept-Encoding} with {@code coding} at full preference: every other entry kept (trimmed,
   * empty ones dropped), any entry for {@code coding} (with or without a q-value) replaced by one
   * bare {@code coding} at the end (Envoy's {@code addEncodingToAcceptEncoding}).
   */
  public static String addToAcceptEncoding(String acceptEncoding, String coding) {
    List<String> kept = new ArrayList<>();
    if (acceptEncoding != null) {
      for (String entry : acceptEncoding.split(",", -1)) {
        String trimmed = entry.trim();
        int semicolon = trimmed.indexOf(';');
        String name = (semicolon < 0 ? trimmed : trimmed.substring(0, semicolon)).trim();
        if (!trimmed.isEmpty() && !name.equalsIgnoreCase(coding)) {
          kept.add(trimmed);
        }
      }
    }
    kept.add(coding);
    return String.join(",", kept);
  }
}
