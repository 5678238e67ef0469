package io.spillway.edge.filters.headertometadata;

import io.spillway.edge.config.HeaderToMetadataConfig;
import io.spillway.edge.config.HeaderToMetadataConfig.GroupPart;
import io.spillway.edge.config.HeaderToMetadataConfig.KeyValue;
import io.spillway.edge.config.HeaderToMetadataConfig.LiteralPart;
import io.spillway.edge.config.HeaderToMetadataConfig.Rewrite;
import io.spillway.edge.config.HeaderToMetadataConfig.Source;
import io.spillway.edge.config.HeaderToMetadataConfig.SubstitutionPart;
import io.spillway.edge.http.filter.MetadataValue;
import io.spillway.edge.http.filter.StreamInfo;
import io.spillway.edge.http.message.Cookies;
import io.spillway.edge.http.message.RequestHeaders;
import io.spillway.edge.http.message.ResponseHeaders;
import io.netty.handler.codec.http.HttpHeaderNames;
import java.util.List;
import java.util.regex.Matcher;

/**
 * One {@code Config}'s rules, compiled for the hot path: the filter's own, or a route's from
 * {@code typed_per_filter_config}. A configured value is converted once here; a header's value on
 * each request. Immutable, shared by every worker.
 */
public final class MetadataRules {
  private final Rule[] request;
  private final Rule[] response;

  private MetadataRules(Rule[] request, Rule[] response) {
    this.request = request;
    this.response = response;
  }

  /** Compiles a translated config. */
  public static MetadataRules compile(HeaderToMetadataConfig config) {
    return new MetadataRules(rules(config.requestRules()), rules(config.responseRules()));
  }

  private static Rule[] rules(List<HeaderToMetadataConfig.Rule> rules) {
    Rule[] out = new Rule[rules.size()];
    for (int i = 0; i < out.length; i++) {
      HeaderToMetadataConfig.Rule r = rules.get(i);
      out[i] = new Rule(r.source() == Source.COOKIE, r.name(), r.onPresent().map(Entry::of).orElse(null),
          r.onMissing().map(Entry::of).orElse(null), r.remove());
    }
    return out;
  }

  boolean hasRequestRules() {
    return request.length > 0;
  }

  boolean hasResponseRules() {
    return response.length > 0;
  }

  /** Applies the request rules in order: reads (and removes) headers, writes metadata. */
  void applyToRequest(RequestHeaders headers, StreamInfo info) {
    for (Rule r : request) {
      String v;
      if (r.cookie) {
        v = Cookies.value(headers.headers().getAll(HttpHeaderNames.COOKIE), r.name);
      } else {
        v = headers.header(r.name);
        if (v != null && v.isEmpty() && (r.name.charAt(0) == ':' || r.name.equals("host"))) {
          v = null; // no authority: the request has no :authority header at all
        } else if (v != null && r.remove) {
          headers.headers().remove(r.name);
        }
      }
      r.apply(v, info);
    }
  }

  /** Applies the response rules in order. */
  void applyToResponse(ResponseHeaders headers, StreamInfo info) {
    for (Rule r : response) {
      String v;
      if (r.cookie) {
        v = Cookies.value(headers.headers().getAll(HttpHeaderNames.COOKIE), r.name); // Envoy reads "cookie" here too
      } else if (r.name.equals(":status")) {
        v = Integer.toString(headers.status());
      } else {
        v = headers.headers().get(r.name);
        if (v != null && r.remove) {
          headers.headers().remove(r.name);
        }
      }
      r.apply(v, info);
    }
  }

  /** A compiled rule; {@code present} and {@code missing} may be null. */
  private record Rule(boolean cookie, String name, Entry present, Entry missing, boolean remove) {
    /** {@code value}: the header's (or cookie's) first value, null when it is missing. */
    void apply(String value, StreamInfo info) {
      if (value != null) {
        if (present != null) {
          present.write(value, info);
        }
      } else if (missing != null) {
        missing.write(null, info);
      }
    }
  }

  /**
   * A compiled pair: a configured value is converted once ({@code constant}, null when it does not
   * convert: nothing is ever written).
   */
  private record Entry(String namespace, String key, boolean configured, MetadataValue constant, Rewrite rewrite,
      HeaderToMetadataConfig.ValueType type, boolean base64) {

    static Entry of(KeyValue kv) {
      boolean configured = !kv.value().isEmpty();
      return new Entry(kv.namespace(), kv.key(), configured,
          configured ? ValueConverter.convert(kv.value(), kv.type(), kv.base64(), false) : null,
          kv.rewrite().orElse(null), kv.type(), kv.base64());
    }

    void write(String headerValue, StreamInfo info) {
      MetadataValue v;
      if (configured) {
        v = constant;
      } else {
        v = ValueConverter.convert(rewrite == null ? headerValue : rewritten(rewrite, headerValue), type, base64, true);
      }
      if (v != null) {
        info.setDynamicMetadata(namespace, key, v);
      }
    }
  }

  /** Every match replaced by the substitution (RE2's {@code GlobalReplace}); no match: the value as it is. */
  static String rewritten(Rewrite rewrite, String value) {
    Matcher m = rewrite.pattern().matcher(value);
    if (!m.find()) {
      return value;
    }
    StringBuilder out = new StringBuilder(value.length() + 16);
    int last = 0;
    do {
      out.append(value, last, m.start());
      for (SubstitutionPart p : rewrite.substitution()) {
        switch (p) {
          case LiteralPart l -> out.append(l.text());
          case GroupPart g -> {
            String group = m.group(g.group());
            if (group != null) {
              out.append(group);
            }
          }
        }
      }
      last = m.end();
    } while (m.find());
    return out.append(value, last, value.length()).toString();
  }
}
