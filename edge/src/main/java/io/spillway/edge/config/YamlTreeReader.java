package io.spillway.edge.config;

import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.core.JsonToken;
import com.fasterxml.jackson.core.StreamReadFeature;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.BigIntegerNode;
import com.fasterxml.jackson.databind.node.BooleanNode;
import com.fasterxml.jackson.databind.node.DecimalNode;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.MissingNode;
import com.fasterxml.jackson.databind.node.NullNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import com.fasterxml.jackson.databind.node.TextNode;
import com.fasterxml.jackson.dataformat.yaml.YAMLFactory;
import java.io.IOException;
import java.math.BigDecimal;
import java.math.BigInteger;

/**
 * Reads YAML into a JSON tree without losing what a plain scalar said. YAML 1.1 resolves
 * {@code no}, {@code on} or {@code 010} to a boolean or a number, which would turn a header value
 * {@code no} into {@code "false"}. Here a scalar becomes a boolean node only when it reads
 * {@code true} or {@code false}, and a number node only when the number prints back as written;
 * any other scalar stays text, which {@link ProtoJsonNormalizer} then reads by the field's type
 * (a bool field still takes {@code yes}/{@code no}/{@code on}/{@code off}, as Envoy does).
 * Duplicate keys are errors.
 */
final class YamlTreeReader {

  private YamlTreeReader() {}

  /** The document's tree; {@link MissingNode} for an empty document. */
  static JsonNode read(String text) throws IOException {
    YAMLFactory factory = YAMLFactory.builder().enable(StreamReadFeature.STRICT_DUPLICATE_DETECTION).build();
    try (JsonParser parser = factory.createParser(text)) {
      JsonToken first = parser.nextToken();
      if (first == null) {
        return MissingNode.getInstance();
      }
      JsonNode root = value(parser, first);
      if (parser.nextToken() != null) {
        throw new IOException("a bootstrap is one YAML document; another starts at line "
            + parser.currentLocation().getLineNr());
      }
      return root;
    }
  }

  private static JsonNode value(JsonParser parser, JsonToken token) throws IOException {
    switch (token) {
      case START_OBJECT: {
        ObjectNode object = JsonNodeFactory.instance.objectNode();
        for (JsonToken t = parser.nextToken(); t != JsonToken.END_OBJECT; t = parser.nextToken()) {
          String name = parser.currentName();
          object.set(name, value(parser, parser.nextToken()));
        }
        return object;
      }
      case START_ARRAY: {
        ArrayNode array = JsonNodeFactory.instance.arrayNode();
        for (JsonToken t = parser.nextToken(); t != JsonToken.END_ARRAY; t = parser.nextToken()) {
          array.add(value(parser, t));
        }
        return array;
      }
      case VALUE_TRUE:
      case VALUE_FALSE: {
        String text = parser.getText();
        return text.equals("true") || text.equals("false") ? BooleanNode.valueOf(text.equals("true"))
            : TextNode.valueOf(text);
      }
      case VALUE_NUMBER_INT:
        return integer(parser.getText());
      case VALUE_NUMBER_FLOAT:
        return decimal(parser.getText());
      case VALUE_NULL:
        return NullNode.getInstance();
      case VALUE_STRING:
        return TextNode.valueOf(parser.getText());
      default:
        throw new IOException("unsupported YAML value " + token + " at " + parser.currentLocation());
    }
  }

  private static JsonNode integer(String text) {
    try {
      BigInteger n = new BigInteger(text);
      return n.toString().equals(text) ? BigIntegerNode.valueOf(n) : TextNode.valueOf(text);
    } catch (NumberFormatException e) {
      return TextNode.valueOf(text); // 0x1F, 0o17, 1_000: kept as written
    }
  }

  private static JsonNode decimal(String text) {
    try {
      BigDecimal n = new BigDecimal(text);
      return n.toString().equals(text) ? DecimalNode.valueOf(n) : TextNode.valueOf(text);
    } catch (NumberFormatException e) {
      return TextNode.valueOf(text); // .inf, .nan: kept as written
    }
  }
}
