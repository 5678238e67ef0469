package io.spillway.central.api;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import com.fasterxml.jackson.dataformat.yaml.YAMLMapper;
import io.spillway.policy.FieldType;
import io.spillway.policy.PolicyField;
import io.spillway.policy.PolicySchema;
import java.util.List;
import org.junit.jupiter.api.Test;

/** The OpenAPI file's OverloadPolicy cannot drift from the shared policy model. */
class OpenApiSchemaTest {

  private static final YAMLMapper YAML = new YAMLMapper();

  private static JsonNode openApi() throws Exception {
    return YAML.readTree(OpsApi.openApiFile());
  }

  private static JsonNode overloadPolicy() throws Exception {
    return openApi().path("components").path("schemas").path("OverloadPolicy");
  }

  @Test
  void overloadPolicySchemaIsExactlyTheSharedModels() throws Exception {
    ObjectNode expected = PolicySchema.jsonSchema();
    expected.remove("$schema");
    assertThat(overloadPolicy())
        .as("regenerate components.schemas.OverloadPolicy in openapi.yaml from PolicySchema.jsonSchema() (without $schema):%n%s",
            YAML.writeValueAsString(expected))
        .isEqualTo(expected);
  }

  @Test
  void rateLimitPolicySchemaIsExactlyTheSharedModels() throws Exception {
    ObjectNode expected = io.spillway.policy.RateLimitSchema.jsonSchema();
    expected.remove("$schema");
    assertThat(openApi().path("components").path("schemas").path("RateLimitPolicy"))
        .as("regenerate components.schemas.RateLimitPolicy in openapi.yaml from RateLimitSchema.jsonSchema() (without $schema):%n%s",
            YAML.writeValueAsString(expected))
        .isEqualTo(expected);
  }

  @Test
  void accessLogPolicySchemaIsExactlyTheSharedModels() throws Exception {
    ObjectNode expected = io.spillway.policy.AccessLogSchema.jsonSchema();
    expected.remove("$schema");
    assertThat(openApi().path("components").path("schemas").path("AccessLogPolicy"))
        .as("regenerate components.schemas.AccessLogPolicy in openapi.yaml from AccessLogSchema.jsonSchema() (without $schema):%n%s",
            YAML.writeValueAsString(expected))
        .isEqualTo(expected);
  }

  @Test
  void everyFieldHasTheModelsTypeRangeDefaultAndValues() throws Exception {
    JsonNode schema = overloadPolicy();
    for (PolicyField field : PolicyField.values()) {
      JsonNode node = schema;
      for (String segment : field.segments()) {
        node = node.path("properties").path(segment);
      }
      assertThat(node.isMissingNode()).as(field.path()).isFalse();
      assertThat(node.path("type").asText()).as(field.path()).isEqualTo(field.type().jsonSchemaType());
      if (field.type().isNumeric()) {
        assertThat(node.path("minimum").doubleValue()).as(field.path() + " minimum").isEqualTo(field.min().doubleValue());
        assertThat(node.path("maximum").doubleValue()).as(field.path() + " maximum").isEqualTo(field.max().doubleValue());
      }
      if (field.type() == FieldType.ENUM) {
        List<String> values = node.path("enum").valueStream().map(JsonNode::asText).toList();
        assertThat(values).as(field.path()).isEqualTo(field.allowedValues());
      }
      assertThat(node.path("default").asText()).as(field.path() + " default")
          .isEqualTo(String.valueOf(field.defaultValue() instanceof io.spillway.policy.Mode m ? m.jsonName() : field.defaultValue()));
    }
  }

  @Test
  void everyRouteIsDescribed() throws Exception {
    JsonNode paths = openApi().path("paths");
    for (String path : List.of("/configuration/edges/policies", "/configuration/audit", "/configuration/edges",
        "/configuration/edges/{id}", "/configuration/edges/{id}/credential", "/configuration/operators", "/configuration/operators/{name}", "/configuration/tokens",
        "/configuration/tokens/{id}", "/configuration/resources", "/configuration/resources/{type}/{name}",
        "/configuration/clusters/{cluster}/endpoints", "/configuration/clusters/{cluster}/endpoints/{endpoint}", "/auth/login", "/auth/session", "/auth/logout", "/healthz", "/readyz", "/metrics", "/openapi.yaml",
        "/schemas/overload-policy.json", "/schemas/rate-limits-policy.json", "/schemas/access-log-policy.json")) {
      assertThat(paths.has(path)).as(path).isTrue();
    }
    assertThat(paths.path("/configuration/edges/policies").has("get")).isTrue();
    assertThat(paths.path("/configuration/edges/policies").has("patch")).isTrue();
  }
}
