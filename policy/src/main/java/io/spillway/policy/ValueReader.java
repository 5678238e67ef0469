package io.spillway.policy;

import com.fasterxml.jackson.databind.JsonNode;
import java.math.BigDecimal;
import java.util.Locale;

/**
 * Turns one JSON value or one environment variable's text into a field's Java value, or into the
 * field's type message. Ranges are left to {@link PolicyValidator}, except for integers too large
 * to hold in an {@code int}, which get the range message here.
 */
final class ValueReader {

  private static final BigDecimal INT_MIN = BigDecimal.valueOf(Integer.MIN_VALUE);
  private static final BigDecimal INT_MAX = BigDecimal.valueOf(Integer.MAX_VALUE);

  /** A value of the field's Java type, or the message saying why there is none. */
  record Read(Object value, String problem) {
    static Read of(Object value) {
      return new Read(value, null);
    }

    static Read problem(String message) {
      return new Read(null, message);
    }
  }

  private ValueReader() {}

  /** Reads a JSON value that is present and not {@code null}. */
  static Read fromJson(TypedField field, JsonNode node) {
    return switch (field.type()) {
      case ENUM -> node.isTextual() ? enumValue(field, node.textValue()) : Read.problem(field.typeMessage());
      case BOOLEAN -> node.isBoolean() ? Read.of(node.booleanValue()) : Read.problem(field.typeMessage());
      case INTEGER, NUMBER -> node.isNumber() ? number(field, decimal(node)) : Read.problem(field.typeMessage());
      case STRING -> node.isTextual() ? Read.of(node.textValue()) : Read.problem(field.typeMessage());
      case STRING_LIST -> stringList(field, node);
    };
  }

  private static Read stringList(TypedField field, JsonNode node) {
    if (!node.isArray()) {
      return Read.problem(field.typeMessage());
    }
    java.util.List<String> values = new java.util.ArrayList<>();
    for (JsonNode element : node) {
      if (!element.isTextual()) {
        return Read.problem(field.typeMessage());
      }
      values.add(element.textValue());
    }
    return Read.of(java.util.List.copyOf(values));
  }

  /** Reads an environment variable's text, already trimmed and not empty; mode and boolean ignore case. */
  static Read fromText(PolicyField field, String text) {
    return switch (field.type()) {
      case ENUM -> enumValue(field, text.toLowerCase(Locale.ROOT));
      case BOOLEAN -> switch (text.toLowerCase(Locale.ROOT)) {
        case "true" -> Read.of(true);
        case "false" -> Read.of(false);
        default -> Read.problem(field.typeMessage());
      };
      case INTEGER, NUMBER -> {
        BigDecimal decimal;
        try {
          decimal = new BigDecimal(text);
        } catch (NumberFormatException e) {
          yield Read.problem(field.typeMessage());
        }
        yield number(field, decimal);
      }
      case STRING -> Read.of(text);
      case STRING_LIST -> Read.problem(field.typeMessage());
    };
  }

  private static Read enumValue(TypedField field, String text) {
    Object value = field.enumValue(text);
    return value != null ? Read.of(value) : Read.problem(field.typeMessage());
  }

  /** The exact value of a JSON number, or null for a non-finite double. */
  private static BigDecimal decimal(JsonNode node) {
    if (node.isDouble() || node.isFloat()) {
      double d = node.doubleValue();
      return Double.isFinite(d) ? BigDecimal.valueOf(d) : null;
    }
    return node.decimalValue();
  }

  private static Read number(TypedField field, BigDecimal decimal) {
    if (field.type() == FieldType.NUMBER) {
      return Read.of(decimal == null ? Double.POSITIVE_INFINITY : decimal.doubleValue());
    }
    if (decimal == null) {
      return Read.problem(field.rangeMessage());
    }
    if (decimal.signum() != 0 && decimal.stripTrailingZeros().scale() > 0) {
      return Read.problem(field.typeMessage());
    }
    if (decimal.compareTo(INT_MIN) < 0 || decimal.compareTo(INT_MAX) > 0) {
      return Read.problem(field.rangeMessage());
    }
    return Read.of(decimal.intValueExact());
  }
}
