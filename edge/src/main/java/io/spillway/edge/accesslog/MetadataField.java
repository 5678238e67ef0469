package io.spillway.edge.accesslog;

import io.spillway.edge.http.filter.DynamicMetadata;
import io.spillway.edge.http.filter.MetadataValue;
import java.util.List;
import java.util.Map;

/**
 * {@code %DYNAMIC_METADATA(NAMESPACE:KEY*):Z%}, as Envoy's {@code MetadataFormatter} prints it. In
 * text (and the legacy string-only {@code json_format}) a string value prints as it is, any other
 * value as JSON, a namespace without a key as its JSON object; the whole is cut to Z characters.
 * In a typed JSON format the value keeps its kind (a number stays a number, a namespace is a
 * nested object) and only a string is cut. Absent — no such namespace or key, a key under a value
 * that is not a struct, or a null value — prints {@code -} (JSON {@code null}).
 */
final class MetadataField {
  private MetadataField() {}

  static LogFormatter.Field of(String namespace, List<String> path, int maxLength) {
    LogFormatter.Value text = (out, in) -> {
      if (path.isEmpty()) {
        Map<String, MetadataValue> fields = fields(in, namespace);
        if (fields == null) {
          return false;
        }
        MetadataValue.appendJsonObject(out, fields);
        return true;
      }
      MetadataValue v = value(in, namespace, path);
      if (v == null) {
        return false;
      }
      v.appendText(out);
      return true;
    };
    LogFormatter.Value json = (out, in) -> {
      if (path.isEmpty()) {
        Map<String, MetadataValue> fields = fields(in, namespace);
        if (fields == null) {
          return false;
        }
        MetadataValue.appendJsonObject(out, fields);
        return true;
      }
      MetadataValue v = value(in, namespace, path);
      if (v == null) {
        return false;
      }
      if (v instanceof MetadataValue.StringValue s && maxLength >= 0 && s.value().length() > maxLength) {
        MetadataValue.appendJsonString(out, s.value().substring(0, maxLength));
      } else {
        v.appendJson(out);
      }
      return true;
    };
    return new LogFormatter.Field(text, false, maxLength, json);
  }

  private static Map<String, MetadataValue> fields(LogInput in, String namespace) {
    DynamicMetadata m = in.info().dynamicMetadata();
    return m == null ? null : m.namespace(namespace);
  }

  /** The value, or null when absent; a null value counts as absent, as in Envoy. */
  private static MetadataValue value(LogInput in, String namespace, List<String> path) {
    DynamicMetadata m = in.info().dynamicMetadata();
    MetadataValue v = m == null ? null : m.value(namespace, path);
    return v == MetadataValue.NullValue.INSTANCE ? null : v;
  }
}
