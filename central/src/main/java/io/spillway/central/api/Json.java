package io.spillway.central.api;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.core.StreamReadConstraints;
import com.fasterxml.jackson.core.StreamReadFeature;
import com.fasterxml.jackson.core.json.JsonReadFeature;
import com.fasterxml.jackson.databind.DeserializationFeature;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.json.JsonMapper;
import java.io.UncheckedIOException;

/**
 * The one JSON configuration of central. Reading is bounded (nesting depth, string and number
 * length) so hostile bodies fail fast with a parse error instead of exhausting the stack or heap;
 * trailing tokens after the document and a key given twice in one object are errors.
 */
public final class Json {

  /** Deepest nesting a request body may have; the deepest real policy is 3 levels. */
  public static final int MAX_NESTING_DEPTH = 32;

  private final ObjectMapper mapper;

  /** Builds the mapper. */
  public Json() {
    mapper = JsonMapper.builder()
        .enable(DeserializationFeature.USE_BIG_DECIMAL_FOR_FLOATS)
        .enable(DeserializationFeature.FAIL_ON_TRAILING_TOKENS)
        .enable(StreamReadFeature.STRICT_DUPLICATE_DETECTION)
        .disable(JsonReadFeature.ALLOW_NON_NUMERIC_NUMBERS)
        .build();
    mapper.getFactory().setStreamReadConstraints(StreamReadConstraints.builder()
        .maxNestingDepth(MAX_NESTING_DEPTH)
        .maxStringLength(1_000_000)
        .maxNumberLength(100)
        .build());
  }

  /**
   * Parses a request body.
   *
   * @throws ApiException 400 when the text is not one well-formed JSON document within the limits
   */
  public JsonNode parse(byte[] body) {
    try {
      JsonNode node = mapper.readTree(body);
      if (node == null || node.isMissingNode()) {
        throw ApiException.of(400, "the request body is empty");
      }
      return node;
    } catch (JsonProcessingException e) {
      throw ApiException.of(400, "the request body is not valid JSON: " + e.getOriginalMessage());
    } catch (java.io.IOException e) {
      throw ApiException.of(400, "the request body could not be read");
    }
  }

  /** Parses JSON text that central itself stored. */
  public JsonNode parseStored(String text) {
    try {
      return mapper.readTree(text);
    } catch (JsonProcessingException e) {
      throw new UncheckedIOException(e);
    }
  }

  /** Compact JSON text of any value Jackson can write (records, maps, trees). */
  public String write(Object value) {
    try {
      return mapper.writeValueAsString(value);
    } catch (JsonProcessingException e) {
      throw new UncheckedIOException(e);
    }
  }

  /** The mapper, for building trees. */
  public ObjectMapper mapper() {
    return mapper;
  }
}
