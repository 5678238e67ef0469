package io.spillway.policy;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.stream.StreamSupport;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

class PolicySchemaTest {

  private static JsonNode describedField(PolicyField field) {
    return StreamSupport.stream(PolicySchema.describe().get("fields").spliterator(), false)
        .filter(node -> node.get("path").asText().equals(field.path()))
        .findFirst()
        .orElseThrow();
  }

  private static Object number(JsonNode node) {
    return node.isNull() ? null : node.isInt() ? (Object) node.intValue() : (Object) node.doubleValue();
  }

  @Test
  void describesEveryFieldInTableOrder() {
    List<String> paths = new ArrayList<>();
    PolicySchema.describe().get("fields").forEach(node -> paths.add(node.get("path").asText()));
    assertThat(paths).containsExactly(java.util.Arrays.stream(PolicyField.values()).map(PolicyField::path).toArray(String[]::new));
  }

  @ParameterizedTest(name = "{0}")
  @EnumSource(PolicyField.class)
  void describesEachFieldWithTheValidatorsRangeAndMessages(PolicyField field) {
    JsonNode node = describedField(field);
    assertThat(node.get("type").asText()).isEqualTo(field.type().schemaName());
    assertThat(node.get("section").asText()).isEqualTo(field.section());
    assertThat(number(node.get("min"))).isEqualTo(field.min());
    assertThat(number(node.get("max"))).isEqualTo(field.max());
    assertThat(node.get("env").isNull() ? null : node.get("env").asText()).isEqualTo(field.envVariable());
    assertThat(node.get("advanced").asBoolean()).isEqualTo(field.advanced());
    assertThat(node.get("hint").asText()).isNotBlank();
    assertThat(node.get("label").asText()).isNotBlank();
    assertThat(node.get("messages").get("type").asText()).isEqualTo(field.typeMessage());
    JsonNode defaultValue = node.get("default");
    switch (field.type()) {
      case ENUM -> {
        assertThat(defaultValue.asText()).isEqualTo(((Mode) field.defaultValue()).jsonName());
        assertThat(node.get("allowedValues").toString()).isEqualTo("[\"off\",\"shadow\",\"enforce\"]");
      }
      case BOOLEAN -> assertThat(defaultValue.booleanValue()).isEqualTo(field.defaultValue());
      case INTEGER, NUMBER -> {
        assertThat(number(defaultValue)).isEqualTo(field.defaultValue());
        assertThat(node.get("allowedValues").isNull()).isTrue();
        // The described range message is what validation actually says just past the upper bound.
        Object tooBig = field.type() == FieldType.INTEGER ? (Object) (field.max().intValue() + 1) : (Object) (field.max().doubleValue() + 0.5);
        assertThat(PolicyValidator.validate(OverloadPolicy.of(Map.of(field, tooBig))))
            .extracting(Problem::message)
            .containsExactly(node.get("messages").get("range").asText());
      }
    }
  }

  @Test
  void advancedFieldsAreTheLearningKnobs() {
    List<String> advanced = new ArrayList<>();
    PolicySchema.describe().get("fields").forEach(node -> {
      if (node.get("advanced").asBoolean()) {
        advanced.add(node.get("path").asText());
      }
    });
    assertThat(advanced).containsExactly(
        "inbound.adaptive.tolerance", "inbound.adaptive.smoothing", "inbound.adaptive.lagTargetMillis");
  }

  @Test
  void describesSectionsRulesAndTheClamp() {
    JsonNode schema = PolicySchema.describe();
    assertThat(schema.get("sections").findValuesAsText("name")).containsExactly("inbound", "outbound");
    assertThat(schema.get("sections").findValuesAsText("hint")).allSatisfy(hint -> assertThat(hint).isNotBlank());
    JsonNode rules = schema.get("rules");
    assertThat(rules).hasSize(CrossFieldRule.values().length);
    assertThat(rules.get(0).get("lesser").asText()).isEqualTo("inbound.startShare");
    assertThat(rules.get(0).get("greater").asText()).isEqualTo("inbound.continuationShare");
    assertThat(rules.get(0).get("message").asText())
        .isEqualTo("inbound.startShare ({inbound.startShare}) must not exceed inbound.continuationShare ({inbound.continuationShare})");
    assertThat(rules.get(1).get("id").asText()).isEqualTo("minLimitWithinMaxLimit");
    JsonNode clamp = schema.get("clamps").get(0);
    assertThat(clamp.get("field").asText()).isEqualTo("inbound.maxInFlight");
    assertThat(clamp.get("min").asText()).isEqualTo("inbound.adaptive.minLimit");
    assertThat(clamp.get("max").asText()).isEqualTo("inbound.adaptive.maxLimit");
  }

  @Test
  void describesEveryObjectThatHoldsFieldsOnceInTableOrder() {
    JsonNode groups = PolicySchema.describe().get("groups");
    assertThat(groups.findValuesAsText("path"))
        .containsExactly("inbound", "inbound.adaptive", "outbound", "outbound.breaker", "outbound.retryBudget");
    groups.forEach(group -> {
      assertThat(group.get("label").asText()).isNotBlank();
      assertThat(group.get("hint").asText()).isNotBlank();
    });
    // The sections' entries are the same objects' label and hint.
    assertThat(groups.get(0).get("hint")).isEqualTo(PolicySchema.describe().get("sections").get(0).get("hint"));
  }

  @Test
  void ruleTemplatesFilledInAreTheValidatorsMessages() {
    JsonNode rule = PolicySchema.describe().get("rules").get(0);
    String filled = rule.get("message").asText()
        .replace("{inbound.startShare}", "0.9")
        .replace("{inbound.continuationShare}", "0.85");
    assertThat(PolicyJson.parse("{\"inbound\": {\"startShare\": 0.9}}").problems())
        .extracting(Problem::message).containsExactly(filled);
  }

  @Test
  void describeReturnsAFreshTreeEachTime() {
    PolicySchema.describe().putNull("fields");
    assertThat(PolicySchema.describe().get("fields").isArray()).isTrue();
    assertThat(PolicySchema.describeAsString()).startsWith("{\"sections\":");
  }

  @ParameterizedTest(name = "{0}")
  @EnumSource(PolicyField.class)
  void jsonSchemaHasEachFieldWithTheValidatorsRange(PolicyField field) {
    JsonNode node = PolicySchema.jsonSchema();
    for (String segment : field.segments()) {
      assertThat(node.get("type").asText()).isEqualTo("object");
      assertThat(node.get("additionalProperties").asBoolean()).isTrue();
      node = node.get("properties").get(segment);
      assertThat(node).as(field.path()).isNotNull();
    }
    assertThat(node.get("type").asText()).isEqualTo(field.type().jsonSchemaType());
    assertThat(node.get("description").asText()).contains(field.hint());
    if (field.type().isNumeric()) {
      assertThat(number(node.get("minimum"))).isEqualTo(field.min());
      assertThat(number(node.get("maximum"))).isEqualTo(field.max());
      assertThat(number(node.get("default"))).isEqualTo(field.defaultValue());
    } else {
      assertThat(node.has("minimum")).isFalse();
    }
    if (field.type() == FieldType.ENUM) {
      assertThat(node.get("enum").toString()).isEqualTo("[\"off\",\"shadow\",\"enforce\"]");
      assertThat(node.get("default").asText()).isEqualTo("shadow");
    }
    if (field.envVariable() != null) {
      assertThat(node.get("description").asText()).contains(field.envVariable());
    }
  }

  @Test
  void jsonSchemaIsDraft2020AndAllowsUnknownFields() {
    JsonNode schema = PolicySchema.jsonSchema();
    assertThat(schema.get("$schema").asText()).isEqualTo("https://json-schema.org/draft/2020-12/schema");
    assertThat(schema.get("title").asText()).isEqualTo("OverloadPolicy");
    assertThat(schema.get("additionalProperties").asBoolean()).isTrue();
    assertThat(schema.has("required")).isFalse();
    assertThat(schema.get("properties").properties()).extracting(Map.Entry::getKey).containsExactly("inbound", "outbound");
    assertThat(schema.get("description").asText())
        .contains("inbound.startShare <= inbound.continuationShare")
        .contains("inbound.adaptive.minLimit <= inbound.adaptive.maxLimit");
    assertThat(schema.findValues("required")).isEmpty();
    assertThat(PolicySchema.jsonSchemaAsString()).contains("\"maxLimit\"");
  }
}
