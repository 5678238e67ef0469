package io.spillway.edge.config;

import io.envoyproxy.envoy.config.core.v3.HeaderValue;
import io.envoyproxy.envoy.config.core.v3.HeaderValueOption;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;

/**
 * Envoy's {@code *_headers_to_add} / {@code *_headers_to_remove} → {@link HeaderMutations}, with
 * Envoy's rules: names are lower-cased tokens, pseudo-headers ({@code :path}...) are never
 * modified, nor is {@code host} on requests; {@code append} defaults to true.
 *
 * <p>Envoy expands {@code %COMMAND%} operators in added values. Route configurations, virtual hosts
 * and routes take them, parsed as access log formats are ({@link AccessLogFormatParser}); the
 * other places that add headers (filters, health checks) take literal values and reject a command.
 * {@code %%} stands for a literal {@code %}, as in Envoy.
 */
final class HeaderMutationTranslator {

  private static final SupportedFields OPTION = SupportedFields.of(HeaderValueOption.getDescriptor(),
      "header", "append", "append_action", "keep_empty_value");
  private static final SupportedFields VALUE = SupportedFields.of(HeaderValue.getDescriptor(), "key", "value");

  /** Which message the mutations apply to. */
  enum Direction { REQUEST, RESPONSE }

  private HeaderMutationTranslator() {}

  /**
   * The mutations of {@code <prefix>_headers_to_add} and {@code <prefix>_headers_to_remove}.
   *
   * @param owner the path of the message holding both lists
   */
  static HeaderMutations translate(List<HeaderValueOption> add, List<String> remove, Direction direction,
      FieldPath owner) throws ConfigException {
    return translate(add, remove, direction, owner, false);
  }

  /**
   * @param formatted whether added values may use command operators (route-level mutations)
   */
  static HeaderMutations translate(List<HeaderValueOption> add, List<String> remove, Direction direction,
      FieldPath owner, boolean formatted) throws ConfigException {
    if (add.isEmpty() && remove.isEmpty()) {
      return HeaderMutations.NONE;
    }
    String prefix = direction == Direction.REQUEST ? "request" : "response";
    FieldPath addPath = owner.field(prefix + "_headers_to_add");
    List<HeaderMutations.HeaderValue> adds = new ArrayList<>();
    for (int i = 0; i < add.size(); i++) {
      adds.add(option(add.get(i), direction, addPath.index(i), formatted));
    }
    FieldPath removePath = owner.field(prefix + "_headers_to_remove");
    List<String> removes = new ArrayList<>();
    for (int i = 0; i < remove.size(); i++) {
      removes.add(modifiableName(remove.get(i), direction, removePath.index(i), "removed"));
    }
    return new HeaderMutations(adds, removes);
  }

  /** Additions only, from a list at {@code listPath} (a filter's {@code response_headers_to_add}, say). */
  static HeaderMutations additions(List<HeaderValueOption> add, Direction direction, FieldPath listPath)
      throws ConfigException {
    return additions(add, direction, listPath, false);
  }

  /** @param formatted whether added values may use command operators */
  static HeaderMutations additions(List<HeaderValueOption> add, Direction direction, FieldPath listPath,
      boolean formatted) throws ConfigException {
    List<HeaderMutations.HeaderValue> adds = new ArrayList<>();
    for (int i = 0; i < add.size(); i++) {
      adds.add(option(add.get(i), direction, listPath.index(i), formatted));
    }
    return adds.isEmpty() ? HeaderMutations.NONE : new HeaderMutations(adds, List.of());
  }

  @SuppressWarnings("deprecation") // append: deprecated for append_action, still accepted by Envoy
  private static HeaderMutations.HeaderValue option(HeaderValueOption o, Direction direction, FieldPath path,
      boolean formatted) throws ConfigException {
    OPTION.check(o, path);
    FieldPath headerPath = path.field("header");
    if (!o.hasHeader()) {
      throw new ConfigException(headerPath, "header is required");
    }
    HeaderValue header = o.getHeader();
    VALUE.check(header, headerPath);
    String name = modifiableName(header.getKey(), direction, headerPath.field("key"), "modified");
    FieldPath valuePath = headerPath.field("value");
    HeaderMutations.Format format = formatted ? format(header.getValue(), valuePath) : null;
    String value = format == null ? literalValue(header.getValue(), valuePath) : "";
    boolean append = true;
    if (o.hasAppend()) {
      if (o.getAppendAction() != HeaderValueOption.HeaderAppendAction.APPEND_IF_EXISTS_OR_ADD) {
        throw new ConfigException(path.field("append_action"), "append and append_action cannot both be set");
      }
      append = o.getAppend().getValue();
    } else {
      append = switch (o.getAppendAction()) {
        case APPEND_IF_EXISTS_OR_ADD -> true;
        case OVERWRITE_IF_EXISTS_OR_ADD -> false;
        default -> throw new ConfigException(path.field("append_action"), o.getAppendAction() + " is not supported");
      };
    }
    return new HeaderMutations.HeaderValue(name, value, append, format, o.getKeepEmptyValue());
  }

  /**
   * A value's command operators, or null when it has none (then it is literal, {@code %%} a
   * {@code %}). Each part between {@code %%}s is parsed as an access log format.
   */
  private static HeaderMutations.Format format(String raw, FieldPath path) throws ConfigException {
    if (raw.replace("%%", "").indexOf('%') < 0) {
      return null;
    }
    for (int i = 0; i < raw.length(); i++) {
      char c = raw.charAt(i);
      if (c == '\r' || c == '\n' || c == 0) {
        throw new ConfigException(path, "a header value may not contain CR, LF or NUL");
      }
    }
    List<AccessLogConfig.FormatToken> tokens = new ArrayList<>();
    String[] parts = raw.split("%%", -1);
    for (int i = 0; i < parts.length; i++) {
      if (i > 0) {
        tokens.add(new AccessLogConfig.Literal("%"));
      }
      tokens.addAll(AccessLogFormatParser.parse(parts[i], path));
    }
    return new HeaderMutations.Format(tokens);
  }

  private static String modifiableName(String raw, Direction direction, FieldPath path, String verb)
      throws ConfigException {
    String name = headerName(raw, path);
    if (name.startsWith(":") || (direction == Direction.REQUEST && name.equals("host"))) {
      throw new ConfigException(path, "\"" + raw + "\" may not be " + verb + " (pseudo-headers"
          + (direction == Direction.REQUEST ? " and host" : "") + " are protected)");
    }
    return name;
  }

  /** A header name, lower-cased: an RFC 9110 token, optionally after a ':' (pseudo-headers). */
  static String headerName(String raw, FieldPath path) throws ConfigException {
    if (raw.isEmpty()) {
      throw new ConfigException(path, "a header name is required");
    }
    int start = raw.startsWith(":") ? 1 : 0;
    if (start == raw.length()) {
      throw new ConfigException(path, "\"" + raw + "\" is not a valid header name");
    }
    for (int i = start; i < raw.length(); i++) {
      if (!isTokenChar(raw.charAt(i))) {
        throw new ConfigException(path, "\"" + raw + "\" is not a valid header name");
      }
    }
    return raw.toLowerCase(Locale.ROOT);
  }

  static String literalValue(String raw, FieldPath path) throws ConfigException {
    StringBuilder value = new StringBuilder(raw.length());
    for (int i = 0; i < raw.length(); i++) {
      char c = raw.charAt(i);
      if (c == '\r' || c == '\n' || c == 0) {
        throw new ConfigException(path, "a header value may not contain CR, LF or NUL");
      }
      if (c == '%') {
        if (i + 1 < raw.length() && raw.charAt(i + 1) == '%') {
          value.append('%');
          i++;
          continue;
        }
        throw new ConfigException(path, "%...% substitutions are not supported (write %% for a literal %)");
      }
      value.append(c);
    }
    return value.toString();
  }

  private static boolean isTokenChar(char c) {
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9')
        || "!#$%&'*+-.^_`|~".indexOf(c) >= 0;
  }
}
