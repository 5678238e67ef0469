package io.spillway.edge.config;

import io.envoyproxy.envoy.extensions.filters.http.header_to_metadata.v3.Config;
import io.envoyproxy.envoy.type.matcher.v3.RegexMatchAndSubstitute;
import io.spillway.edge.config.HeaderToMetadataConfig.KeyValue;
import io.spillway.edge.config.HeaderToMetadataConfig.Rewrite;
import io.spillway.edge.config.HeaderToMetadataConfig.Rule;
import io.spillway.edge.config.HeaderToMetadataConfig.Source;
import io.spillway.edge.config.HeaderToMetadataConfig.ValueType;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import java.util.regex.Pattern;

/**
 * {@code envoy.filters.http.header_to_metadata} ({@code header_to_metadata.v3.Config}) into
 * {@link HeaderToMetadataConfig}, with the checks of Envoy's {@code Rule} constructor and proto
 * validation: a rule reads a header or a cookie (not both, not neither), has at least one of
 * {@code on_header_present} / {@code on_header_missing}, {@code on_header_missing} has a value,
 * {@code value} and {@code regex_value_rewrite} are not both set, a cookie is never removed, a key
 * is not empty. Ours: a pseudo-header or {@code host} may be read but not removed, and a regular
 * expression that RE2 would refuse (back-references, look-around, possessive quantifiers, atomic
 * groups — Java reads them, RE2 does not) is refused.
 */
final class HeaderToMetadataTranslator {

  private static final SupportedFields CONFIG = SupportedFields.of(Config.getDescriptor(), "request_rules",
      "response_rules");
  private static final SupportedFields RULE = SupportedFields.of(Config.Rule.getDescriptor(), "header", "cookie",
      "on_header_present", "on_header_missing", "remove");
  private static final SupportedFields PAIR = SupportedFields.of(Config.KeyValuePair.getDescriptor(),
      "metadata_namespace", "key", "value", "regex_value_rewrite", "type", "encode");
  private static final SupportedFields REWRITE = SupportedFields.of(RegexMatchAndSubstitute.getDescriptor(),
      "pattern", "substitution");
  private static final Set<String> REQUEST_PSEUDO = Set.of(":authority", ":path", ":method", ":scheme");

  private HeaderToMetadataTranslator() {}

  /**
   * @param perRoute a {@code typed_per_filter_config} entry: it must have rules (Envoy: "Per filter
   *     configs must at least specify either request or response rules")
   */
  static HeaderToMetadataConfig translate(Config c, FieldPath path, boolean perRoute) throws ConfigException {
    CONFIG.check(c, path);
    if (perRoute && c.getRequestRulesCount() == 0 && c.getResponseRulesCount() == 0) {
      throw new ConfigException(path, "a per-route header_to_metadata Config needs request_rules or response_rules");
    }
    return new HeaderToMetadataConfig(rules(c.getRequestRulesList(), path.field("request_rules"), true),
        rules(c.getResponseRulesList(), path.field("response_rules"), false));
  }

  private static List<Rule> rules(List<Config.Rule> rules, FieldPath path, boolean request) throws ConfigException {
    List<Rule> out = new ArrayList<>(rules.size());
    for (int i = 0; i < rules.size(); i++) {
      out.add(rule(rules.get(i), path.index(i), request));
    }
    return out;
  }

  private static Rule rule(Config.Rule r, FieldPath path, boolean request) throws ConfigException {
    RULE.check(r, path);
    if (!r.getHeader().isEmpty() && !r.getCookie().isEmpty()) {
      throw new ConfigException(path.field("cookie"), "header and cookie may not both be set");
    }
    if (r.getHeader().isEmpty() && r.getCookie().isEmpty()) {
      throw new ConfigException(path, "one of header or cookie is required");
    }
    if (!r.hasOnHeaderPresent() && !r.hasOnHeaderMissing()) {
      throw new ConfigException(path, "the rule has neither on_header_present nor on_header_missing");
    }
    Source source = r.getHeader().isEmpty() ? Source.COOKIE : Source.HEADER;
    String name;
    if (source == Source.HEADER) {
      name = HeaderMutationTranslator.headerName(r.getHeader(), path.field("header"));
      boolean pseudo = name.startsWith(":");
      if (pseudo && !(request ? REQUEST_PSEUDO.contains(name) : name.equals(":status"))) {
        throw new ConfigException(path.field("header"), "\"" + r.getHeader() + "\" is not a pseudo-header of a "
            + (request ? "request (:authority, :path, :method, :scheme)" : "response (:status)"));
      }
      if (r.getRemove() && (pseudo || (request && name.equals("host")))) {
        throw new ConfigException(path.field("remove"), "\"" + r.getHeader() + "\" may not be removed"
            + " (pseudo-headers" + (request ? " and host" : "") + " are protected)");
      }
    } else {
      name = r.getCookie();
      if (name.startsWith(":")) {
        throw new ConfigException(path.field("cookie"), "\"" + name + "\" is not a valid cookie name");
      }
      HeaderMutationTranslator.headerName(name, path.field("cookie")); // a token, as a cookie name must be
      if (r.getRemove()) {
        throw new ConfigException(path.field("remove"), "remove is not supported for a cookie (Envoy refuses it)");
      }
    }
    Optional<KeyValue> present = Optional.empty();
    if (r.hasOnHeaderPresent()) {
      FieldPath at = path.field("on_header_present");
      Config.KeyValuePair p = r.getOnHeaderPresent();
      if (!p.getValue().isEmpty() && p.hasRegexValueRewrite()) {
        throw new ConfigException(at.field("regex_value_rewrite"), "value and regex_value_rewrite may not both be set");
      }
      present = Optional.of(pair(p, at, true));
    }
    Optional<KeyValue> missing = Optional.empty();
    if (r.hasOnHeaderMissing()) {
      FieldPath at = path.field("on_header_missing");
      if (r.getOnHeaderMissing().getValue().isEmpty()) {
        throw new ConfigException(at.field("value"), "on_header_missing needs a value (there is no header to read)");
      }
      missing = Optional.of(pair(r.getOnHeaderMissing(), at, false));
    }
    return new Rule(source, name, present, missing, r.getRemove());
  }

  /** A pair; {@code regex_value_rewrite} is only read for {@code on_header_present}, as in Envoy. */
  private static KeyValue pair(Config.KeyValuePair p, FieldPath path, boolean present) throws ConfigException {
    PAIR.check(p, path);
    if (p.getKey().isEmpty()) {
      throw new ConfigException(path.field("key"), "key is required");
    }
    ValueType type = switch (p.getType()) {
      case STRING -> ValueType.STRING;
      case NUMBER -> ValueType.NUMBER;
      case PROTOBUF_VALUE -> ValueType.PROTOBUF_VALUE;
      default -> throw new ConfigException(path.field("type"), "unknown value " + p.getTypeValue()
          + " (STRING, NUMBER or PROTOBUF_VALUE)");
    };
    boolean base64 = switch (p.getEncode()) {
      case NONE -> false;
      case BASE64 -> true;
      default -> throw new ConfigException(path.field("encode"), "unknown value " + p.getEncodeValue()
          + " (NONE or BASE64)");
    };
    Optional<Rewrite> rewrite = present && p.hasRegexValueRewrite()
        ? Optional.of(rewrite(p.getRegexValueRewrite(), path.field("regex_value_rewrite")))
        : Optional.empty();
    String namespace = p.getMetadataNamespace().isEmpty()
        ? HeaderToMetadataConfig.DEFAULT_NAMESPACE : p.getMetadataNamespace();
    return new KeyValue(namespace, p.getKey(), p.getValue(), rewrite, type, base64);
  }

  private static Rewrite rewrite(RegexMatchAndSubstitute r, FieldPath path) throws ConfigException {
    REWRITE.check(r, path);
    if (!r.hasPattern()) {
      throw new ConfigException(path.field("pattern"), "pattern is required");
    }
    FieldPath regexPath = path.field("pattern").field("regex");
    Re2Syntax.check(r.getPattern().getRegex(), regexPath);
    Pattern pattern = MatchTranslator.regex(r.getPattern(), path.field("pattern"));
    return new Rewrite(pattern, Re2Syntax.substitution(r.getSubstitution(), pattern.matcher("").groupCount(),
        path.field("substitution")));
  }
}
