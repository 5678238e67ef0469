package io.spillway.policy;

import java.util.List;
import java.util.Set;
import java.util.regex.Pattern;

/**
 * The rules of the edge's formatter that can be checked without it: a format string's command
 * operators are well formed ({@code %NAME%}, {@code %NAME(ARG)%}, {@code %NAME(ARG):N%}, every
 * {@code %} closed) and named among those the edge fills; response flags are the edge's; a file
 * destination is a plain relative path. The edge parses the format again with its own parser and
 * refuses (NACKs) what passes here and it still cannot compile, e.g. a bad START_TIME pattern.
 */
public final class AccessLogFormat {

  /** Longest format string, and longest value of a JSON format. */
  public static final int MAX_LENGTH = 4096;
  /** Most keys of a JSON format. */
  public static final int MAX_JSON_KEYS = 64;
  /** Longest key of a JSON format. */
  public static final int MAX_JSON_KEY_LENGTH = 128;
  /** Longest file path. */
  public static final int MAX_PATH_LENGTH = 255;

  /**
   * The command operators the edge's formatter fills, under Envoy's names (the edge's
   * {@code AccessLogConfig.Operator}; a test there keeps the two the same).
   */
  public static final Set<String> OPERATORS = Set.of("START_TIME", "REQ", "RESP", "TRAILER", "REQ_WITHOUT_QUERY",
      "RESPONSE_CODE", "RESPONSE_CODE_DETAILS", "RESPONSE_FLAGS", "RESPONSE_FLAGS_LONG", "BYTES_RECEIVED",
      "BYTES_SENT", "DURATION", "REQUEST_DURATION", "RESPONSE_DURATION", "RESPONSE_TX_DURATION", "UPSTREAM_HOST",
      "UPSTREAM_REMOTE_ADDRESS", "UPSTREAM_CLUSTER", "DOWNSTREAM_REMOTE_ADDRESS", "DOWNSTREAM_REMOTE_ADDRESS_WITHOUT_PORT",
      "DOWNSTREAM_REMOTE_PORT", "DOWNSTREAM_DIRECT_REMOTE_ADDRESS", "DOWNSTREAM_DIRECT_REMOTE_ADDRESS_WITHOUT_PORT",
      "DOWNSTREAM_LOCAL_ADDRESS", "DOWNSTREAM_LOCAL_ADDRESS_WITHOUT_PORT", "DOWNSTREAM_LOCAL_PORT", "PROTOCOL",
      "ROUTE_NAME", "GRPC_STATUS", "HOSTNAME", "UNIQUE_ID", "LOCAL_REPLY_BODY", "FILTER_STATE", "ENVIRONMENT");

  /** The response flags the edge sets, by Envoy's short names, in the edge's order. */
  public static final List<String> RESPONSE_FLAGS = List.of("UH", "UF", "UO", "UT", "UR", "URX", "NR", "NC",
      "DC", "LR", "SI", "DPE", "OM", "UAEX", "AR", "GR", "RL", "RLSE", "DI", "FI");

  private static final Pattern SEGMENT = Pattern.compile("[A-Za-z0-9._-]+");

  private AccessLogFormat() {}

  /**
   * What is wrong with a format string, as the end of a sentence after its path (e.g. "has an
   * unterminated command operator at position 4"), or null when it is well formed.
   */
  public static String problem(String format) {
    int n = format.length();
    int i = 0;
    while (i < n) {
      if (format.charAt(i) != '%') {
        i++;
        continue;
      }
      int start = i;
      int j = i + 1;
      while (j < n && isNameChar(format.charAt(j))) {
        j++;
      }
      String name = format.substring(i + 1, j);
      if (j < n && format.charAt(j) == '(') {
        int close = format.indexOf(')', j + 1);
        if (close < 0) {
          return "has an unterminated command operator at position " + start + ": no ')' after %" + name + "(";
        }
        j = close + 1;
      }
      if (j < n && format.charAt(j) == ':') {
        int k = j + 1;
        while (k < n && Character.isDigit(format.charAt(k))) {
          k++;
        }
        if (k == j + 1 || k - j - 1 > 9) {
          return "has a command operator %" + name + "% at position " + start
              + " whose ':' is not followed by a maximum length";
        }
        j = k;
      }
      if (name.isEmpty() || j >= n || format.charAt(j) != '%') {
        return "has an unterminated command operator at position " + start
            + " (write %NAME%, %NAME(ARG)% or %NAME(ARG):N%; every % opens a command operator)";
      }
      if (!OPERATORS.contains(name)) {
        return "names an unknown or unsupported command operator %" + name + "% at position " + start;
      }
      i = j + 1;
    }
    return null;
  }

  private static boolean isNameChar(char c) {
    return (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_';
  }

  /**
   * What is wrong with a file destination's path, as the end of a sentence after its path, or null:
   * segments of letters, digits, '.', '_' and '-' joined by '/', none of them "." or "..", not
   * starting with '/'.
   */
  public static String pathProblem(String path) {
    if (path.isEmpty() || path.length() > MAX_PATH_LENGTH) {
      return "must be 1 to " + MAX_PATH_LENGTH + " characters";
    }
    if (path.startsWith("/") || path.startsWith("\\") || (path.length() > 1 && path.charAt(1) == ':')) {
      return "must be relative to the edge's access log directory, not absolute";
    }
    for (String segment : path.split("/", -1)) {
      if (segment.equals("..") || segment.equals(".")) {
        return "must not contain '.' or '..' segments";
      }
      if (!SEGMENT.matcher(segment).matches()) {
        return "must be segments of letters, digits, '.', '_' or '-' joined by '/'";
      }
    }
    return null;
  }
}
