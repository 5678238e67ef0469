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
      "ROUTE_NAME", "GRPC_STATUS", "HOSTNAME", "UNIQUE_ID", "LOCAL_REPLY_BODY", "FILTER_STATE", "DYNAMIC_METADATA",
      "ENVIRONMENT");

  /** The response flags the edge sets, by Envoy's short names, in the edge's order. */
  public static final List<String> RESPONSE_FLAGS = List.of("UH", "UF", "UO", "UT", "UR", "URX", "NR", "NC",
      "DC", "LR", "SI", "DPE", "OM", "UAEX", "AR", "GR", "RL", "RLSE", "DI", "FI", "DT");

  /**
   * What a format string's problems say after its path, with {@code {position}} (where the
   * command operator starts, counted in UTF-16 units from 0) and {@code {name}} (its name) filled
   * in; {@link AccessLogSchema#describe()} gives them to the console, which checks with them.
   */
  public enum FormatProblem {
    /** An empty or overlong string. */
    LENGTH("must be 1 to " + MAX_LENGTH + " characters"),
    /** {@code %NAME(} without its {@code )}. */
    UNCLOSED_ARGUMENT("has an unterminated command operator at position {position}: no ')' after %{name}("),
    /** {@code :} not followed by 1 to 9 digits. */
    NO_MAX_LENGTH("has a command operator %{name}% at position {position} whose ':' is not followed by a maximum length"),
    /** A {@code %} without a name or without its closing {@code %}. */
    UNTERMINATED("has an unterminated command operator at position {position} (write %NAME%, %NAME(ARG)% or "
        + "%NAME(ARG):N%; every % opens a command operator)"),
    /** A name not in {@link #OPERATORS}. */
    UNKNOWN_OPERATOR("names an unknown or unsupported command operator %{name}% at position {position}");

    private final String template;

    FormatProblem(String template) {
      this.template = template;
    }

    /** The text after the path, with the placeholders. */
    public String template() {
      return template;
    }

    String at(int position, String name) {
      return template.replace("{position}", Integer.toString(position)).replace("{name}", name);
    }
  }

  /** What a file destination's problems say after its path ({@code accessLog.destination.file}). */
  public enum PathProblem {
    /** An empty or overlong path. */
    LENGTH("must be 1 to " + MAX_PATH_LENGTH + " characters"),
    /** A path starting with '/', '\\' or a drive letter. */
    ABSOLUTE("must be relative to the edge's access log directory, not absolute"),
    /** A "." or ".." segment. */
    DOT_SEGMENT("must not contain '.' or '..' segments"),
    /** Another character, or an empty segment. */
    SEGMENTS("must be segments of letters, digits, '.', '_' or '-' joined by '/'");

    private final String text;

    PathProblem(String text) {
      this.text = text;
    }

    /** The text after the path. */
    public String text() {
      return text;
    }
  }

  /** What one segment of a file destination's path is made of (a regular expression). */
  public static final String PATH_SEGMENT = "[A-Za-z0-9._-]+";

  private static final Pattern SEGMENT = Pattern.compile(PATH_SEGMENT);

  private AccessLogFormat() {}

  /**
   * What is wrong with a format string, as the end of a sentence after its path (e.g. "has an
   * unterminated command operator at position 4"), or null when it is well formed.
   */
  public static String problem(String format) {
    if (format.isEmpty() || format.length() > MAX_LENGTH) {
      return FormatProblem.LENGTH.template();
    }
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
          return FormatProblem.UNCLOSED_ARGUMENT.at(start, name);
        }
        j = close + 1;
      }
      if (j < n && format.charAt(j) == ':') {
        int k = j + 1;
        while (k < n && isDigit(format.charAt(k))) {
          k++;
        }
        if (k == j + 1 || k - j - 1 > 9) {
          return FormatProblem.NO_MAX_LENGTH.at(start, name);
        }
        j = k;
      }
      if (name.isEmpty() || j >= n || format.charAt(j) != '%') {
        return FormatProblem.UNTERMINATED.at(start, name);
      }
      if (!OPERATORS.contains(name)) {
        return FormatProblem.UNKNOWN_OPERATOR.at(start, name);
      }
      i = j + 1;
    }
    return null;
  }

  /** ASCII digits only: the console's check reads the same characters as digits. */
  private static boolean isDigit(char c) {
    return c >= '0' && c <= '9';
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
      return PathProblem.LENGTH.text();
    }
    if (path.startsWith("/") || path.startsWith("\\") || (path.length() > 1 && path.charAt(1) == ':')) {
      return PathProblem.ABSOLUTE.text();
    }
    for (String segment : path.split("/", -1)) {
      if (segment.equals("..") || segment.equals(".")) {
        return PathProblem.DOT_SEGMENT.text();
      }
      if (!SEGMENT.matcher(segment).matches()) {
        return PathProblem.SEGMENTS.text();
      }
    }
    return null;
  }
}
