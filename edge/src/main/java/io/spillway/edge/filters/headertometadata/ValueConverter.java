package io.spillway.edge.filters.headertometadata;

import io.spillway.edge.config.HeaderToMetadataConfig.ValueType;
import io.spillway.edge.http.filter.MetadataValue;
import java.nio.charset.StandardCharsets;
import java.util.Base64;
import java.util.regex.Pattern;

/**
 * A rule's value into a metadata value, as Envoy's {@code HeaderToMetadataFilter::addMetadata}
 * does it: empty values and values of 8 KiB or more are dropped; {@code BASE64} is decoded first
 * (padding optional; a value that does not decode, or decodes to nothing, is dropped); then
 * {@code STRING} keeps the text, {@code NUMBER} must be a decimal number once trimmed, and
 * {@code PROTOBUF_VALUE} must be a serialized {@code google.protobuf.Value}. A value that fails
 * gives null: nothing is written, and the request goes on.
 */
final class ValueConverter {
  /** Envoy's {@code MAX_HEADER_VALUE_LEN}: a value this long or longer is dropped. */
  static final int MAX_VALUE_BYTES = 8 * 1024;
  /** What {@code absl::SimpleAtod} reads that is also a finite JSON number: decimal, with an exponent. */
  private static final Pattern DECIMAL = Pattern.compile("[+-]?(?:[0-9]+(?:\\.[0-9]*)?|\\.[0-9]+)(?:[eE][+-]?[0-9]+)?");

  private ValueConverter() {}

  /**
   * @param value the header's value (its characters are its bytes, as the codecs read them) or the
   *     configured value
   * @param fromHeader whether {@code value} came from a header (one byte per character) rather than
   *     the configuration (UTF-8)
   * @return the value to write, or null when there is none
   */
  static MetadataValue convert(String value, ValueType type, boolean base64, boolean fromHeader) {
    if (value.isEmpty()) {
      return null;
    }
    byte[] bytes = fromHeader ? null : value.getBytes(StandardCharsets.UTF_8);
    if ((bytes == null ? value.length() : bytes.length) >= MAX_VALUE_BYTES) {
      return null;
    }
    if (base64) {
      try {
        bytes = Base64.getDecoder().decode(value);
      } catch (IllegalArgumentException e) {
        return null;
      }
      if (bytes.length == 0) {
        return null;
      }
    } else if (bytes == null && (type == ValueType.PROTOBUF_VALUE || hasHighBytes(value))) {
      bytes = value.getBytes(StandardCharsets.ISO_8859_1);
    }
    return switch (type) {
      case STRING -> new MetadataValue.StringValue(bytes == null || (!base64 && !fromHeader) ? value
          : new String(bytes, StandardCharsets.UTF_8));
      case NUMBER -> number(bytes == null ? value : new String(bytes, StandardCharsets.ISO_8859_1));
      case PROTOBUF_VALUE -> ProtobufValueReader.read(bytes);
    };
  }

  private static MetadataValue number(String text) {
    String s = text.strip();
    if (!DECIMAL.matcher(s).matches()) {
      return null;
    }
    double d = Double.parseDouble(s);
    return Double.isInfinite(d) ? null : new MetadataValue.NumberValue(d);
  }

  private static boolean hasHighBytes(String s) {
    for (int i = 0; i < s.length(); i++) {
      if (s.charAt(i) > 0x7f) {
        return true;
      }
    }
    return false;
  }
}
