package io.spillway.policy;

import com.fasterxml.jackson.core.JsonLocation;
import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.DeserializationFeature;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectReader;
import com.fasterxml.jackson.databind.ObjectWriter;
import com.fasterxml.jackson.databind.json.JsonMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.io.UncheckedIOException;
import java.util.List;
import java.util.Objects;

/**
 * The JSON form of an {@link OverloadPolicy}: the body of the {@code overload} section of central's
 * policy API and of what central sends to edges.
 *
 * <p>Reading is lenient about what it does not know and strict about what it does: unknown keys
 * are ignored at every level, {@code null} means absent, and a known field with a value of the
 * wrong JSON type, out of range or breaking a cross-field rule becomes a {@link Problem} naming its
 * path — never an exception. An integer field accepts a number with no fraction ({@code 5.0}), as
 * JSON Schema does. A JSON {@code null} for the whole section ({@code "overload": null}, which
 * deletes the policy) is for the caller to handle before parsing.
 *
 * <p>Writing leaves absent fields out and spells modes in lower case.
 */
public final class PolicyJson {

  // ObjectReader and ObjectWriter are immutable and thread-safe.
  private static final ObjectReader TREE_READER = JsonMapper.builder()
      .enable(DeserializationFeature.USE_BIG_DECIMAL_FOR_FLOATS)
      .enable(DeserializationFeature.FAIL_ON_TRAILING_TOKENS)
      .build()
      .reader();
  private static final ObjectWriter WRITER = JsonMapper.builder().build().writer();

  private PolicyJson() {}

  /** Parses and validates JSON text against the built-in defaults. */
  public static ParseResult parse(String json) {
    return parse(json, DeploymentDefaults.builtIn());
  }

  /** Parses and validates a JSON tree against the built-in defaults. */
  public static ParseResult parse(JsonNode node) {
    return parse(node, DeploymentDefaults.builtIn());
  }

  /** Parses JSON text and validates it against a deployment's baseline. */
  public static ParseResult parse(String json, DeploymentDefaults defaults) {
    Objects.requireNonNull(json, "json");
    JsonNode node;
    try {
      node = TREE_READER.readTree(json);
    } catch (JsonProcessingException e) {
      return new ParseResult(OverloadPolicy.EMPTY, List.of(new Problem("", notJson(e.getLocation()))));
    }
    return parse(node, defaults);
  }

  /** Parses a JSON tree and validates it against a deployment's baseline. */
  public static ParseResult parse(JsonNode node, DeploymentDefaults defaults) {
    Objects.requireNonNull(defaults, "defaults");
    if (node == null || !node.isObject()) {
      return new ParseResult(OverloadPolicy.EMPTY, List.of(new Problem("", "the overload policy must be a JSON object")));
    }
    PolicyReader.Outcome read = PolicyReader.read(node);
    List<Problem> problems = PolicyValidator.validate(read.policy(), defaults, read.problems(), read.unreadable());
    return new ParseResult(read.policy(), problems);
  }

  /** The policy as compact JSON, without absent fields. */
  public static String write(OverloadPolicy policy) {
    Objects.requireNonNull(policy, "policy");
    try {
      return WRITER.writeValueAsString(policy);
    } catch (JsonProcessingException e) {
      throw new UncheckedIOException(e);
    }
  }

  /** The policy as a JSON tree, without absent fields. */
  public static ObjectNode toTree(OverloadPolicy policy) {
    try {
      return (ObjectNode) TREE_READER.readTree(write(policy));
    } catch (JsonProcessingException e) {
      throw new UncheckedIOException(e);
    }
  }

  private static String notJson(JsonLocation location) {
    if (location == null || location.getLineNr() < 1) {
      return "the overload policy is not valid JSON";
    }
    return "the overload policy is not valid JSON (line " + location.getLineNr() + ", column " + location.getColumnNr() + ")";
  }
}
