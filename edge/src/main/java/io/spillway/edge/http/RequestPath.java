package io.spillway.edge.http;

import java.nio.charset.StandardCharsets;

/**
 * Envoy's three rewrites of a request's {@code :path} ({@code source/common/http/path_utility.cc}),
 * each on the path part only: the query, from the first {@code ?}, is kept byte for byte. Each
 * returns the very same String when it changes nothing, so a caller tells "changed" by identity
 * and the common request allocates nothing.
 *
 * <ul>
 *   <li>{@link #canonicalize}: RFC 3986 §6.2.2 normalization as Envoy does it with Chromium's path
 *       canonicalizer: percent-encoded unreserved characters (§2.3) are decoded, other valid
 *       escapes are kept as they are (hex case included), characters that may not appear in a
 *       path are percent-encoded (upper-case hex), {@code \} becomes {@code /}, and dot segments
 *       (also {@code %2e}) are removed (§5.2.4; {@code ..} above the root stays at the root).
 *       {@code %00} makes the path invalid; a {@code %} that starts no valid escape is kept.
 *   <li>{@link #mergeSlashes}: runs of {@code /} become one.
 *   <li>{@link #unescapeSlashes}: {@code %2F}/{@code %2f} become {@code /}, {@code %5C}/{@code %5c}
 *       become {@code \}.
 * </ul>
 */
final class RequestPath {

  // A character's class in a path, as Chromium's url_canon_path.cc classifies it.
  private static final byte PASS = 0;
  private static final byte SPECIAL = 1;
  private static final byte ESCAPE_BIT = 2;
  private static final byte ESCAPE = ESCAPE_BIT | SPECIAL;
  private static final byte UNESCAPE = 4;
  private static final byte INVALID_BIT = 8;
  private static final byte INVALID = INVALID_BIT | SPECIAL;
  private static final byte[] CLASS = new byte[256];
  private static final char[] HEX = "0123456789ABCDEF".toCharArray();

  static {
    java.util.Arrays.fill(CLASS, ESCAPE); // controls, space, "#%<>?\^`{|} DEL and every byte >= 0x80
    CLASS[0] = INVALID;
    for (char c : "!$&'()*+,/:;=@[]".toCharArray()) {
      CLASS[c] = PASS;
    }
    for (char c = '0'; c <= '9'; c++) {
      CLASS[c] = UNESCAPE;
    }
    for (char c = 'A'; c <= 'Z'; c++) {
      CLASS[c] = UNESCAPE;
      CLASS[c + ('a' - 'A')] = UNESCAPE;
    }
    CLASS['-'] = UNESCAPE;
    CLASS['_'] = UNESCAPE;
    CLASS['~'] = UNESCAPE;
    CLASS['.'] = SPECIAL;
  }

  private RequestPath() {
  }

  /** Where the path part of {@code pathAndQuery} ends. */
  private static int pathEnd(String pathAndQuery) {
    int q = pathAndQuery.indexOf('?');
    return q < 0 ? pathAndQuery.length() : q;
  }

  /**
   * RFC 3986 normalization of the path part (Envoy's {@code PathUtil::canonicalPath}).
   *
   * @return the normalized path and query, {@code pathAndQuery} itself when it is already
   *     normal, or {@code null} when the path cannot be normalized (it holds a NUL, raw or as
   *     {@code %00})
   */
  static String canonicalize(String pathAndQuery) {
    int end = pathEnd(pathAndQuery);
    if (isCanonical(pathAndQuery, end)) {
      return pathAndQuery;
    }
    StringBuilder out = new StringBuilder(end + 8 + (pathAndQuery.length() - end));
    if (!canonicalizeInto(pathAndQuery, end, out)) {
      return null;
    }
    if (startsWith(pathAndQuery, out, end)) {
      return pathAndQuery;
    }
    return out.append(pathAndQuery, end, pathAndQuery.length()).toString();
  }

  /** Whether {@code out} equals the first {@code end} characters of {@code s}. */
  private static boolean startsWith(String s, StringBuilder out, int end) {
    if (out.length() != end) {
      return false;
    }
    for (int i = 0; i < end; i++) {
      if (s.charAt(i) != out.charAt(i)) {
        return false;
      }
    }
    return true;
  }

  /**
   * Whether the canonicalizer would copy the path unchanged, told without building anything: it
   * starts with {@code /} and holds no character needing care. A dot needs care only right after
   * a slash (a dot segment may start there); up to the first character needing care the output
   * equals the input, so the input's previous character stands for the output's.
   */
  private static boolean isCanonical(String s, int end) {
    if (end == 0 || s.charAt(0) != '/') {
      return false;
    }
    for (int i = 1; i < end; i++) {
      char c = s.charAt(i);
      if (c > 0xFF) {
        return false;
      }
      if ((CLASS[c] & SPECIAL) != 0 && (c != '.' || s.charAt(i - 1) == '/')) {
        return false;
      }
    }
    return true;
  }

  private static boolean canonicalizeInto(String s, int end, StringBuilder out) {
    if (end == 0) {
      out.append('/');
      return true;
    }
    if (!isSlash(s.charAt(0))) {
      out.append('/');
    }
    boolean valid = true;
    int lastInvalidPercent = Integer.MIN_VALUE; // where in out a '%' that starts no valid escape went
    for (int i = 0; i < end; i++) {
      char c = s.charAt(i);
      if (c > 0xFF) {
        appendEscapedUtf8(s, i, out);
        if (Character.isHighSurrogate(c) && i + 1 < end && Character.isLowSurrogate(s.charAt(i + 1))) {
          i++;
        }
        continue;
      }
      byte cls = CLASS[c];
      if ((cls & SPECIAL) == 0) {
        out.append(c);
        continue;
      }
      int dot = dotLength(s, i, end);
      if (dot > 0) {
        i = dotSegment(s, i, dot, end, out);
      } else if (c == '\\') {
        out.append('/');
      } else if (c == '%') {
        int value = decodeEscape(s, i, end);
        if (value < 0) {
          lastInvalidPercent = out.length();
          out.append('%');
        } else if ((CLASS[value] & UNESCAPE) != 0) {
          out.append((char) value);
          if (lastInvalidPercent >= out.length() - 3) {
            escapeNestedPercent(s, i + 3, end, lastInvalidPercent, out);
          }
          i += 2;
        } else {
          out.append(s, i, i + 3); // kept as sent, hex case too
          if ((CLASS[value] & INVALID_BIT) != 0) {
            valid = false;
          }
          i += 2;
        }
      } else {
        appendEscaped(c, out);
        if ((cls & INVALID_BIT) != 0) {
          valid = false;
        }
      }
    }
    return valid;
  }

  /**
   * A dot ({@code .} or {@code %2e}, {@code dot} input characters) at {@code i}: a segment of its
   * own ({@code .} or {@code ..}) after a slash is dropped, {@code ..} also dropping the segment
   * before it; any other dot is copied.
   *
   * @return the index of the last input character consumed
   */
  private static int dotSegment(String s, int i, int dot, int end, StringBuilder out) {
    if (out.isEmpty() || out.charAt(out.length() - 1) != '/') {
      out.append('.');
      return i + dot - 1;
    }
    int after = i + dot;
    if (after == end) {
      return after - 1; // "." at the end
    }
    if (isSlash(s.charAt(after))) {
      return after; // "./"
    }
    int second = dotLength(s, after, end);
    if (second > 0) {
      int afterSecond = after + second;
      if (afterSecond == end) {
        backUpToPreviousSlash(out);
        return afterSecond - 1; // ".." at the end
      }
      if (isSlash(s.charAt(afterSecond))) {
        backUpToPreviousSlash(out);
        return afterSecond; // "../"
      }
    }
    out.append('.');
    return i + dot - 1;
  }

  /** Drops the output's last segment; {@code out} ends with '/', and the first slash stays. */
  private static void backUpToPreviousSlash(StringBuilder out) {
    int i = out.length() - 1;
    if (i == 0) {
      return;
    }
    i--;
    while (out.charAt(i) != '/' && i > 0) {
      i--;
    }
    out.setLength(i + 1);
  }

  /**
   * A character just decoded within two characters of an earlier {@code %} that started no valid
   * escape: if the output now reads as a valid escape there (input {@code %%30} would give
   * {@code %0}, then {@code %00}), that {@code %} becomes {@code %25}, so decoding the output
   * again cannot give a different path.
   */
  private static void escapeNestedPercent(String s, int next, int end, int percent, StringBuilder out) {
    int length = out.length();
    char lastDecoded = out.charAt(length - 1);
    boolean appendNext = percent == length - 2;
    if (appendNext) {
      if (next == end || s.charAt(next) >= 0x80) {
        return;
      }
      out.append(s.charAt(next));
    }
    if (decodeEscape(out, percent, out.length()) >= 0) {
      if (!appendNext) {
        out.append(out.charAt(percent + 1));
      }
      out.setCharAt(percent + 1, '2');
      out.setCharAt(percent + 2, '5');
      out.append(lastDecoded);
    } else if (appendNext) {
      out.setLength(length);
    }
  }

  /** 1 for {@code .}, 3 for {@code %2e} or {@code %2E}, else 0. */
  private static int dotLength(String s, int i, int end) {
    char c = s.charAt(i);
    if (c == '.') {
      return 1;
    }
    if (c == '%' && i + 3 <= end && s.charAt(i + 1) == '2' && (s.charAt(i + 2) == 'e' || s.charAt(i + 2) == 'E')) {
      return 3;
    }
    return 0;
  }

  /** The byte {@code %XY} at {@code i} stands for, or -1 when it is not a valid escape. */
  private static int decodeEscape(CharSequence s, int i, int end) {
    if (i + 3 > end) {
      return -1;
    }
    int hi = Character.digit(s.charAt(i + 1), 16);
    int lo = Character.digit(s.charAt(i + 2), 16);
    if (hi < 0 || lo < 0 || s.charAt(i + 1) > 0x7F || s.charAt(i + 2) > 0x7F) {
      return -1;
    }
    return (hi << 4) | lo;
  }

  private static boolean isSlash(char c) {
    return c == '/' || c == '\\';
  }

  private static void appendEscaped(int b, StringBuilder out) {
    out.append('%').append(HEX[(b >> 4) & 0xF]).append(HEX[b & 0xF]);
  }

  /** A character beyond one byte (no codec gives one): its UTF-8 bytes, each escaped. */
  private static void appendEscapedUtf8(String s, int i, StringBuilder out) {
    int cp = s.codePointAt(i);
    for (byte b : new String(Character.toChars(cp)).getBytes(StandardCharsets.UTF_8)) {
      appendEscaped(b & 0xFF, out);
    }
  }

  /**
   * Merges runs of slashes in the path part into one (Envoy's {@code PathUtil::mergeSlashes}:
   * a leading and a trailing slash are kept, the segments between joined by one slash).
   */
  static String mergeSlashes(String pathAndQuery) {
    int end = pathEnd(pathAndQuery);
    int doubled = pathAndQuery.indexOf("//");
    if (doubled < 0 || doubled + 1 >= end) {
      return pathAndQuery;
    }
    StringBuilder out = new StringBuilder(pathAndQuery.length());
    if (pathAndQuery.charAt(0) == '/') {
      out.append('/');
    }
    boolean first = true;
    int i = 0;
    while (i < end) {
      if (pathAndQuery.charAt(i) == '/') {
        i++;
        continue;
      }
      int segmentEnd = i;
      while (segmentEnd < end && pathAndQuery.charAt(segmentEnd) != '/') {
        segmentEnd++;
      }
      if (!first) {
        out.append('/');
      }
      out.append(pathAndQuery, i, segmentEnd);
      first = false;
      i = segmentEnd;
    }
    if (pathAndQuery.charAt(end - 1) == '/') {
      out.append('/');
    }
    return out.append(pathAndQuery, end, pathAndQuery.length()).toString();
  }

  /**
   * Decodes escaped slashes in the path part (Envoy's {@code PathUtil::unescapeSlashes}):
   * {@code %2F} and {@code %2f} to {@code /}, {@code %5C} and {@code %5c} to {@code \}.
   *
   * @return the new path and query, or {@code pathAndQuery} itself when it holds none
   */
  static String unescapeSlashes(String pathAndQuery) {
    int end = pathEnd(pathAndQuery);
    int percent = pathAndQuery.indexOf('%');
    if (percent < 0 || percent >= end) {
      return pathAndQuery;
    }
    StringBuilder out = null;
    int copied = 0;
    for (int i = percent; i + 2 < end; i++) {
      if (pathAndQuery.charAt(i) != '%') {
        continue;
      }
      char replacement = escapedSlash(pathAndQuery.charAt(i + 1), pathAndQuery.charAt(i + 2));
      if (replacement != 0) {
        if (out == null) {
          out = new StringBuilder(pathAndQuery.length());
        }
        out.append(pathAndQuery, copied, i).append(replacement);
        i += 2;
        copied = i + 1;
      }
    }
    if (out == null) {
      return pathAndQuery;
    }
    return out.append(pathAndQuery, copied, pathAndQuery.length()).toString();
  }

  private static char escapedSlash(char hi, char lo) {
    if (hi == '2' && (lo == 'F' || lo == 'f')) {
      return '/';
    }
    if (hi == '5' && (lo == 'C' || lo == 'c')) {
      return '\\';
    }
    return 0;
  }
}
