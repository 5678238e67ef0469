package io.spillway.edge.config;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.BooleanNode;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;
import com.fasterxml.jackson.databind.node.TextNode;
import com.google.protobuf.Descriptors.Descriptor;
import com.google.protobuf.Descriptors.EnumDescriptor;
import com.google.protobuf.Descriptors.EnumValueDescriptor;
import com.google.protobuf.Descriptors.FieldDescriptor;
import com.google.protobuf.Descriptors.OneofDescriptor;
import com.google.protobuf.util.Durations;
import java.math.BigDecimal;
import java.math.BigInteger;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.regex.Pattern;
import java.util.stream.Collectors;

/**
 * Walks a bootstrap's JSON tree alongside the proto descriptors before protobuf's JSON parser sees
 * it, for two reasons. It accepts what Envoy's loader accepts (protobuf's C++ JSON parser in its
 * legacy mode, with case-insensitive enums) and protobuf-java's does not: a
 * {@code google.protobuf.Duration} written as {@code {seconds: 0, nanos: 250000000}} is rewritten
 * to {@code "0.250s"}; a scalar where a string belongs becomes that string; a bool field takes YAML's
 * {@code yes}/{@code no}/{@code on}/{@code off}; an enum name in any ASCII case becomes the declared
 * name; one value where a list belongs becomes a list of it, and lists inside a list are spliced;
 * a TypedStruct becomes the message its {@code type_url} names. And it reports what
 * protobuf would reject with the path of the field, which protobuf's messages lack: unknown fields,
 * wrong JSON kinds, unknown enum names, out-of-range numbers, a field given twice (snake_case and
 * lowerCamelCase), two members of one oneof, an unknown {@code @type}.
 *
 * <p>Anys are walked through the type their {@code @type} names, looked up in the
 * {@link ExtensionRegistry}; the fields inside a {@code typed_config} continue its path
 * ({@code ...typed_config.route_config...}). The tree is rewritten in place.
 */
final class ProtoJsonNormalizer {

  private static final Pattern DURATION_TEXT = Pattern.compile("-?[0-9]+(\\.[0-9]{1,9})?s");
  /** YAML 1.1's spellings of booleans, which Envoy's YAML loader accepts for bool fields. */
  private static final Set<String> YAML_TRUE =
      Set.of("true", "True", "TRUE", "yes", "Yes", "YES", "y", "Y", "on", "On", "ON");
  private static final Set<String> YAML_FALSE =
      Set.of("false", "False", "FALSE", "no", "No", "NO", "n", "N", "off", "Off", "OFF");
  /** A hexadecimal integer literal as yaml-cpp reads one: an optional sign, {@code 0x}, hex digits. */
  private static final java.util.regex.Pattern HEX = java.util.regex.Pattern.compile("([-+]?)0[xX]([0-9a-fA-F]+)");
  private static final BigInteger UINT32_MAX = BigInteger.valueOf(0xFFFF_FFFFL);
  private static final BigInteger UINT64_MAX = BigInteger.ONE.shiftLeft(64).subtract(BigInteger.ONE);

  private final ExtensionRegistry registry;

  ProtoJsonNormalizer(ExtensionRegistry registry) {
    this.registry = registry;
  }

  /** Checks and rewrites {@code root}, the JSON form of a message of {@code type}; returns the tree to parse. */
  JsonNode normalize(JsonNode root, Descriptor type) throws ConfigException {
    return normalize(root, type, FieldPath.ROOT);
  }

  /** As {@link #normalize(JsonNode, Descriptor)} for a message that sits at {@code path}. */
  JsonNode normalize(JsonNode root, Descriptor type, FieldPath path) throws ConfigException {
    if (root == null || root.isMissingNode() || root.isNull()) {
      return JsonNodeFactory.instance.objectNode();
    }
    return message(root, type, path);
  }

  private JsonNode message(JsonNode node, Descriptor type, FieldPath path) throws ConfigException {
    JsonNode wellKnown = wellKnown(node, type, path);
    if (wellKnown != null) {
      return wellKnown;
    }
    ObjectNode object = requireObject(node, type.getFullName(), path);
    fields(object, type, path, false);
    return object;
  }

  /** Walks the fields of {@code object} as {@code type}; {@code inAny} skips the {@code @type} key. */
  private void fields(ObjectNode object, Descriptor type, FieldPath path, boolean inAny) throws ConfigException {
    Map<FieldDescriptor, String> seen = new HashMap<>();
    Map<OneofDescriptor, FieldDescriptor> oneofs = new HashMap<>();
    List<String> names = new ArrayList<>();
    object.fieldNames().forEachRemaining(names::add);
    for (String name : names) {
      if (inAny && name.equals("@type")) {
        continue;
      }
      FieldDescriptor field = findField(type, name);
      if (field == null) {
        throw new ConfigException(path.field(name), "unknown field (not in " + type.getFullName() + ")");
      }
      FieldPath fieldPath = path.field(field.getName());
      String previous = seen.put(field, name);
      if (previous != null) {
        throw new ConfigException(fieldPath, "set twice, as \"" + previous + "\" and as \"" + name + "\"");
      }
      JsonNode value = object.get(name);
      if (value.isNull() && !isValueType(field)) {
        continue;
      }
      OneofDescriptor oneof = field.getRealContainingOneof();
      if (oneof != null) {
        FieldDescriptor other = oneofs.put(oneof, field);
        if (other != null) {
          throw new ConfigException(fieldPath, "only one of " + other.getName() + " and " + field.getName()
              + " may be set (oneof " + oneof.getName() + ")");
        }
      }
      object.set(name, fieldValue(value, field, fieldPath));
    }
  }

  private static FieldDescriptor findField(Descriptor type, String name) {
    FieldDescriptor field = type.findFieldByName(name);
    if (field != null) {
      return field;
    }
    for (FieldDescriptor f : type.getFields()) {
      if (f.getJsonName().equals(name)) {
        return f;
      }
    }
    return null;
  }

  private JsonNode fieldValue(JsonNode value, FieldDescriptor field, FieldPath path) throws ConfigException {
    if (field.isMapField()) {
      ObjectNode map = requireObject(value, "map", path);
      FieldDescriptor keyField = field.getMessageType().findFieldByName("key");
      FieldDescriptor valueField = field.getMessageType().findFieldByName("value");
      List<String> keys = new ArrayList<>();
      map.fieldNames().forEachRemaining(keys::add);
      for (String key : keys) {
        FieldPath entryPath = path.key(key);
        if (keyField.getJavaType() != FieldDescriptor.JavaType.STRING) {
          scalar(TextNode.valueOf(key), keyField, entryPath);
        }
        JsonNode entry = map.get(key);
        if (entry.isNull() && !isValueType(valueField)) {
          throw new ConfigException(entryPath, "a map value cannot be null");
        }
        map.set(key, single(entry, valueField, entryPath));
      }
      return map;
    }
    if (field.isRepeated()) {
      ArrayNode array = elements(value, field);
      for (int i = 0; i < array.size(); i++) {
        JsonNode element = array.get(i);
        if (element.isNull() && !isValueType(field)) {
          element = defaultElement(field);
        }
        array.set(i, single(element, field, path.index(i)));
      }
      return array;
    }
    return single(value, field, path);
  }

  /**
   * The elements of a repeated field, read as Envoy's loader reads them (protobuf's JSON parser in
   * its legacy mode, which Envoy runs): a value that is not a list is a list of that one value; a
   * list inside the list is spliced into it, so {@code [*shared, extra]} with {@code shared} a list
   * gives its elements and {@code extra} (not for {@code google.protobuf.Value} or
   * {@code ListValue} elements, whose lists are values).
   */
  private static ArrayNode elements(JsonNode value, FieldDescriptor field) {
    if (!value.isArray()) {
      return JsonNodeFactory.instance.arrayNode().add(value);
    }
    ArrayNode array = (ArrayNode) value;
    boolean listsAreValues = field.getJavaType() == FieldDescriptor.JavaType.MESSAGE
        && (field.getMessageType().getFullName().equals("google.protobuf.Value")
            || field.getMessageType().getFullName().equals("google.protobuf.ListValue"));
    boolean nested = false;
    for (JsonNode element : array) {
      nested |= element.isArray();
    }
    if (listsAreValues || !nested) {
      return array;
    }
    ArrayNode flat = JsonNodeFactory.instance.arrayNode();
    splice(array, flat);
    return flat;
  }

  private static void splice(ArrayNode from, ArrayNode into) {
    for (JsonNode element : from) {
      if (element.isArray()) {
        splice((ArrayNode) element, into);
      } else {
        into.add(element);
      }
    }
  }

  /** What a null list element reads as in Envoy's loader: the element type's default value. */
  private static JsonNode defaultElement(FieldDescriptor field) {
    return switch (field.getJavaType()) {
      case MESSAGE -> JsonNodeFactory.instance.objectNode();
      case ENUM -> JsonNodeFactory.instance.numberNode(0);
      case BOOLEAN -> BooleanNode.FALSE;
      case STRING, BYTE_STRING -> TextNode.valueOf("");
      default -> JsonNodeFactory.instance.numberNode(0);
    };
  }

  private JsonNode single(JsonNode value, FieldDescriptor field, FieldPath path) throws ConfigException {
    if (field.getJavaType() == FieldDescriptor.JavaType.MESSAGE) {
      return message(value, field.getMessageType(), path);
    }
    return scalar(value, field, path);
  }

  /** Handles the well-known types with special JSON forms; null when {@code type} is an ordinary message. */
  private JsonNode wellKnown(JsonNode node, Descriptor type, FieldPath path) throws ConfigException {
    switch (type.getFullName()) {
      case "google.protobuf.Duration":
        return duration(node, path);
      case "google.protobuf.Any":
        return any(node, path);
      case "google.protobuf.Struct":
        requireObject(node, "google.protobuf.Struct", path);
        return node;
      case "google.protobuf.ListValue":
        if (!node.isArray()) {
          throw new ConfigException(path, "expected a list, got " + kind(node));
        }
        return node;
      case "google.protobuf.Value":
        return node;
      case "google.protobuf.Timestamp":
      case "google.protobuf.FieldMask":
        if (!node.isTextual()) {
          throw new ConfigException(path, "expected a string, got " + kind(node));
        }
        return node;
      case "google.protobuf.DoubleValue":
      case "google.protobuf.FloatValue":
      case "google.protobuf.Int64Value":
      case "google.protobuf.UInt64Value":
      case "google.protobuf.Int32Value":
      case "google.protobuf.UInt32Value":
      case "google.protobuf.BoolValue":
      case "google.protobuf.StringValue":
      case "google.protobuf.BytesValue":
        return scalar(node, type.findFieldByName("value"), path);
      default:
        return null;
    }
  }

  /**
   * A Duration: the canonical {@code "1.5s"} string, or Envoy's YAML object form
   * {@code {seconds, nanos}}, which is rewritten to the string. A bare number is rejected, as
   * Envoy rejects it.
   */
  private static JsonNode duration(JsonNode node, FieldPath path) throws ConfigException {
    if (node.isTextual()) {
      String text = node.textValue().trim();
      if (!DURATION_TEXT.matcher(text).matches()) {
        throw new ConfigException(path, "\"" + node.textValue() + "\" is not a duration (write e.g. \"0.25s\")");
      }
      try {
        Durations.parse(text);
      } catch (java.text.ParseException | IllegalArgumentException e) {
        throw new ConfigException(path, "\"" + node.textValue() + "\" is out of range for a duration");
      }
      return TextNode.valueOf(text);
    }
    if (node.isObject()) {
      long seconds = 0;
      long nanos = 0;
      List<String> names = new ArrayList<>();
      node.fieldNames().forEachRemaining(names::add);
      for (String name : names) {
        JsonNode part = node.get(name);
        switch (name) {
          case "seconds" -> seconds = integer(part, path.field("seconds"), BigInteger.valueOf(Long.MIN_VALUE),
              BigInteger.valueOf(Long.MAX_VALUE)).longValue();
          case "nanos" -> nanos = integer(part, path.field("nanos"), BigInteger.valueOf(Integer.MIN_VALUE),
              BigInteger.valueOf(Integer.MAX_VALUE)).longValue();
          default -> throw new ConfigException(path.field(name), "unknown field (a duration has seconds and nanos)");
        }
      }
      com.google.protobuf.Duration d =
          com.google.protobuf.Duration.newBuilder().setSeconds(seconds).setNanos((int) nanos).build();
      if (!Durations.isValid(d)) {
        throw new ConfigException(path, "{seconds: " + seconds + ", nanos: " + nanos + "} is not a valid duration"
            + " (nanos within +-999999999 and of the same sign as seconds)");
      }
      return TextNode.valueOf(Durations.toString(d));
    }
    if (node.isNumber()) {
      throw new ConfigException(path, "a duration must be a string such as \"" + node.asText()
          + "s\" or an object {seconds, nanos}, not a bare number");
    }
    throw new ConfigException(path, "expected a duration (e.g. \"0.25s\"), got " + kind(node));
  }

  private JsonNode any(JsonNode node, FieldPath path) throws ConfigException {
    ObjectNode object = requireObject(node, "google.protobuf.Any", path);
    JsonNode typeNode = object.get("@type");
    if (typeNode == null) {
      if (object.isEmpty()) {
        return object;
      }
      throw new ConfigException(path, "@type is required");
    }
    if (!typeNode.isTextual()) {
      throw new ConfigException(path, "@type must be a string, got " + kind(typeNode));
    }
    String typeUrl = typeNode.textValue();
    if (ExtensionRegistry.isTypedStruct(typeUrl)) {
      if (!typeUrl.contains("/")) {
        throw new ConfigException(path, "@type \"" + typeUrl + "\" must be a type URL such as type.googleapis.com/"
            + typeUrl);
      }
      typedStruct(object, path);
      return object;
    }
    Descriptor type = registry.descriptorForTypeUrl(typeUrl);
    if (type == null) {
      throw new ConfigException(path, registry.unknownTypeRule(typeUrl));
    }
    if (!typeUrl.contains("/")) {
      throw new ConfigException(path, "@type \"" + typeUrl + "\" must be a type URL such as type.googleapis.com/"
          + type.getFullName());
    }
    if (type.getFullName().startsWith("google.protobuf.")) {
      JsonNode inner = object.get("value");
      if (inner != null) {
        object.set("value", message(inner, type, path));
      }
      return object;
    }
    fields(object, type, path, true);
    return object;
  }

  /**
   * A {@code udpa.type.v1.TypedStruct} or {@code xds.type.v3.TypedStruct}: an extension's config as
   * a Struct, with the type it is written for. Envoy chooses the extension by that inner
   * {@code type_url} (which, unlike an Any's, needs no host part) and reads the Struct as that type
   * with its JSON leniencies, so here the value is checked as that type, field by field, under
   * {@code value}, and the Any is rewritten to hold that message itself: what is stored, dumped
   * and sent on over xDS is the plain message. ({@link ExtensionRegistry} unwraps a TypedStruct
   * that arrives as a proto, from another control plane.)
   */
  private void typedStruct(ObjectNode object, FieldPath path) throws ConfigException {
    Descriptor wrapper = com.github.xds.type.v3.TypedStruct.getDescriptor();
    JsonNode typeUrlNode = null;
    JsonNode value = null;
    List<String> names = new ArrayList<>();
    object.fieldNames().forEachRemaining(names::add);
    for (String name : names) {
      if (name.equals("@type")) {
        continue;
      }
      FieldDescriptor field = findField(wrapper, name);
      if (field == null) {
        throw new ConfigException(path.field(name), "unknown field (a TypedStruct has type_url and value)");
      }
      if (field.getName().equals("type_url")) {
        if (typeUrlNode != null) {
          throw new ConfigException(path.field("type_url"), "set twice");
        }
        typeUrlNode = object.get(name);
      } else {
        if (value != null) {
          throw new ConfigException(path.field("value"), "set twice");
        }
        value = object.get(name);
      }
    }
    FieldPath typeUrlPath = path.field("type_url");
    if (typeUrlNode == null || typeUrlNode.isNull() || (typeUrlNode.isTextual() && typeUrlNode.textValue().isEmpty())) {
      throw new ConfigException(typeUrlPath, "type_url is required (it names the extension the value configures)");
    }
    if (!typeUrlNode.isTextual()) {
      throw new ConfigException(typeUrlPath, "expected a string, got " + kind(typeUrlNode));
    }
    String inner = typeUrlNode.textValue();
    if (ExtensionRegistry.isTypedStruct(inner)) {
      throw new ConfigException(typeUrlPath, "a TypedStruct cannot hold another TypedStruct (Envoy does not unwrap"
          + " nested ones)");
    }
    Descriptor type = registry.descriptorForTypeUrl(inner);
    if (type == null) {
      throw new ConfigException(typeUrlPath, registry.unknownTypeRule(inner));
    }
    FieldPath valuePath = path.field("value");
    ObjectNode struct = value == null || value.isNull() ? JsonNodeFactory.instance.objectNode()
        : requireObject(value, "google.protobuf.Struct", valuePath);
    boolean wellKnown = type.getFullName().startsWith("google.protobuf.");
    if (!wellKnown) {
      fields(struct, type, valuePath, false);
    }
    object.removeAll();
    object.put("@type", (inner.contains("/") ? inner.substring(0, inner.lastIndexOf('/') + 1) : "type.googleapis.com/")
        + type.getFullName());
    if (wellKnown) {
      object.set("value", struct);
    } else {
      object.setAll(struct);
    }
  }

  private static JsonNode scalar(JsonNode value, FieldDescriptor field, FieldPath path) throws ConfigException {
    switch (field.getType()) {
      case STRING:
        if (value.isTextual()) {
          return value;
        }
        if (value.isValueNode() && !value.isNull() && !value.isBinary()) {
          return TextNode.valueOf(value.asText());
        }
        throw new ConfigException(path, "expected a string, got " + kind(value));
      case BYTES:
        if (!value.isTextual()) {
          throw new ConfigException(path, "expected a base64 string, got " + kind(value));
        }
        return value;
      case BOOL:
        if (value.isBoolean()) {
          return value;
        }
        if (value.isTextual() && YAML_TRUE.contains(value.textValue())) {
          return BooleanNode.TRUE;
        }
        if (value.isTextual() && YAML_FALSE.contains(value.textValue())) {
          return BooleanNode.FALSE;
        }
        throw new ConfigException(path, "expected true or false, got " + describeValue(value));
      case ENUM:
        return enumValue(value, field.getEnumType(), path);
      case INT32:
      case SINT32:
      case SFIXED32:
        return integerNode(value, path, BigInteger.valueOf(Integer.MIN_VALUE), BigInteger.valueOf(Integer.MAX_VALUE));
      case UINT32:
      case FIXED32:
        return integerNode(value, path, BigInteger.ZERO, UINT32_MAX);
      case INT64:
      case SINT64:
      case SFIXED64:
        return integerNode(value, path, BigInteger.valueOf(Long.MIN_VALUE), BigInteger.valueOf(Long.MAX_VALUE));
      case UINT64:
      case FIXED64:
        return integerNode(value, path, BigInteger.ZERO, UINT64_MAX);
      case FLOAT:
      case DOUBLE:
        if (value.isNumber()) {
          return value;
        }
        if (value.isTextual()) {
          String t = value.textValue();
          if (t.equals("NaN") || t.equals("Infinity") || t.equals("-Infinity")) {
            return value;
          }
          try {
            new BigDecimal(t);
            return value;
          } catch (NumberFormatException e) {
            // fall through to the error
          }
        }
        throw new ConfigException(path, "expected a number, got " + describeValue(value));
      default:
        throw new ConfigException(path, "unexpected field type " + field.getType());
    }
  }

  /**
   * An enum value: its name in any ASCII case, as Envoy's loader reads it (protobuf's JSON parser
   * with {@code case_insensitive_enum_parsing}, which Envoy sets: {@code auto} is {@code AUTO},
   * {@code tlsv1_2} is {@code TLSv1_2}), rewritten to the declared name; or its number, also
   * written as a string. Any other name is refused.
   */
  private static JsonNode enumValue(JsonNode value, EnumDescriptor type, FieldPath path) throws ConfigException {
    if (value.isTextual()) {
      String name = value.textValue();
      EnumValueDescriptor v = type.findValueByName(name);
      if (v == null) {
        v = findIgnoringAsciiCase(type, name);
      }
      if (v != null) {
        return TextNode.valueOf(v.getName());
      }
      try {
        value = JsonNodeFactory.instance.numberNode(Integer.parseInt(name));
      } catch (NumberFormatException e) {
        throw new ConfigException(path, "\"" + name + "\" is not one of " + enumNames(type));
      }
    }
    if (value.isIntegralNumber()) {
      if (!value.canConvertToInt() || type.findValueByNumber(value.intValue()) == null) {
        throw new ConfigException(path, value.asText() + " is not one of " + enumNames(type));
      }
      return value;
    }
    throw new ConfigException(path, "expected one of " + enumNames(type) + ", got " + kind(value));
  }

  /** The first value, in declaration order, whose name equals {@code name} ignoring ASCII case only. */
  private static EnumValueDescriptor findIgnoringAsciiCase(EnumDescriptor type, String name) {
    for (EnumValueDescriptor v : type.getValues()) {
      if (equalsIgnoringAsciiCase(v.getName(), name)) {
        return v;
      }
    }
    return null;
  }

  private static boolean equalsIgnoringAsciiCase(String a, String b) {
    if (a.length() != b.length()) {
      return false;
    }
    for (int i = 0; i < a.length(); i++) {
      char x = a.charAt(i);
      char y = b.charAt(i);
      if (x != y && asciiLower(x) != asciiLower(y)) {
        return false;
      }
    }
    return true;
  }

  private static char asciiLower(char c) {
    return c >= 'A' && c <= 'Z' ? (char) (c + ('a' - 'A')) : c;
  }

  private static String enumNames(EnumDescriptor type) {
    return type.getValues().stream().map(EnumValueDescriptor::getName).collect(Collectors.joining(", "));
  }

  /**
   * An integer field's value: as written, or, for a hexadecimal literal ({@code 0xEE}), its number —
   * Envoy's YAML loader (yaml-cpp) reads hexadecimal integers, and protobuf's JSON parser does not.
   */
  private static JsonNode integerNode(JsonNode value, FieldPath path, BigInteger min, BigInteger max)
      throws ConfigException {
    BigInteger n = integer(value, path, min, max);
    return value.isTextual() && HEX.matcher(value.textValue().trim()).matches()
        ? com.fasterxml.jackson.databind.node.BigIntegerNode.valueOf(n) : value;
  }

  private static BigInteger integer(JsonNode value, FieldPath path, BigInteger min, BigInteger max)
      throws ConfigException {
    BigInteger n;
    try {
      if (value.isIntegralNumber()) {
        n = value.bigIntegerValue();
      } else if (value.isNumber()) {
        n = value.decimalValue().toBigIntegerExact();
      } else if (value.isTextual()) {
        String t = value.textValue().trim();
        java.util.regex.Matcher hex = HEX.matcher(t);
        n = hex.matches() ? new BigInteger(hex.group(2), 16).multiply(hex.group(1).equals("-")
            ? BigInteger.ONE.negate() : BigInteger.ONE) : new BigDecimal(t).toBigIntegerExact();
      } else {
        throw new ConfigException(path, "expected an integer, got " + kind(value));
      }
    } catch (ArithmeticException | NumberFormatException e) {
      throw new ConfigException(path, "expected an integer, got " + describeValue(value));
    }
    if (n.compareTo(min) < 0 || n.compareTo(max) > 0) {
      throw new ConfigException(path, n + " is out of range [" + min + ", " + max + "]");
    }
    return n;
  }

  private static ObjectNode requireObject(JsonNode node, String what, FieldPath path) throws ConfigException {
    if (!node.isObject()) {
      throw new ConfigException(path, "expected an object (" + what + "), got " + kind(node));
    }
    return (ObjectNode) node;
  }

  /** {@code google.protobuf.Value} fields take JSON null as a value. */
  private static boolean isValueType(FieldDescriptor field) {
    return field.getJavaType() == FieldDescriptor.JavaType.MESSAGE
        && field.getMessageType().getFullName().equals("google.protobuf.Value");
  }

  private static String describeValue(JsonNode value) {
    return value.isValueNode() ? kind(value) + " " + value : kind(value);
  }

  private static String kind(JsonNode node) {
    if (node.isTextual()) {
      return "a string";
    }
    if (node.isNumber()) {
      return "a number";
    }
    if (node.isBoolean()) {
      return "a boolean";
    }
    if (node.isArray()) {
      return "a list";
    }
    if (node.isObject()) {
      return "an object";
    }
    if (node.isNull()) {
      return "null";
    }
    return node.getNodeType().toString().toLowerCase(java.util.Locale.ROOT);
  }
}
