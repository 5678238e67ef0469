package io.spillway.central.policy;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.spillway.policy.DeploymentDefaults;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** The merge rules of the policy PATCH, without HTTP or a database. */
class PolicyPatchTest {

  private static final ObjectMapper JSON = new ObjectMapper();

  private static JsonNode json(String text) {
    try {
      return JSON.readTree(text);
    } catch (Exception e) {
      throw new AssertionError(e);
    }
  }

  private static PolicyPatch.Applied apply(PolicyState state, String body) throws Exception {
    return (PolicyPatch.Applied) PolicyPatch.parse(json(body)).apply(state);
  }

  private final PolicyState withAll = new PolicyState(Map.of(
      Section.OVERLOAD, new PolicyState.Entry(json("{\"inbound\":{\"mode\":\"enforce\"}}"), 3),
      Section.ACCESS_LOG, new PolicyState.Entry(json("{\"format\":\"%DURATION%\"}"), 1),
      Section.RATE_LIMITS, new PolicyState.Entry(json("{\"r\":2}"), 7)));

  @Test
  void objectReplacesTheSectionEntirely() throws Exception {
    PolicyPatch.Applied applied = apply(withAll, "{\"overload\": {\"outbound\": {\"mode\": \"off\"}}}");
    assertThat(applied.after().get(Section.OVERLOAD)).isEqualTo(new PolicyState.Entry(json("{\"outbound\":{\"mode\":\"off\"}}"), 4));
    assertThat(applied.changes()).singleElement().satisfies(change -> {
      assertThat(change.before()).isEqualTo(json("{\"inbound\":{\"mode\":\"enforce\"}}"));
      assertThat(change.revision()).isEqualTo(4);
    });
  }

  @Test
  void nullDeletesAndAbsentSectionsStay() throws Exception {
    PolicyPatch.Applied applied = apply(withAll, "{\"overload\": null}");
    assertThat(applied.after().get(Section.OVERLOAD)).isEqualTo(new PolicyState.Entry(null, 4));
    assertThat(applied.after().get(Section.ACCESS_LOG)).isEqualTo(withAll.get(Section.ACCESS_LOG));
    assertThat(applied.after().get(Section.RATE_LIMITS)).isEqualTo(withAll.get(Section.RATE_LIMITS));
  }

  @Test
  void unchangedValuesAndDeletingNothingChangeNothing() throws Exception {
    assertThat(apply(withAll, "{\"accessLog\": {\"format\": \"%DURATION%\"}}").changes()).isEmpty();
    assertThat(apply(PolicyState.empty(), "{\"overload\": null}").changes()).isEmpty();
    assertThat(apply(withAll, "{}").after()).isEqualTo(withAll);
  }

  @Test
  void unknownFieldsAreDroppedFromOverloadAndIgnoredAtTheTop() throws Exception {
    PolicyPatch.Applied applied = apply(PolicyState.empty(),
        "{\"x\": 1, \"overload\": {\"inbound\": {\"mode\": \"shadow\", \"y\": 2}, \"z\": {}}}");
    assertThat(applied.after().get(Section.OVERLOAD).value()).isEqualTo(json("{\"inbound\":{\"mode\":\"shadow\"}}"));
  }

  @Test
  void staleExpectedRevisionIsAConflict() throws Exception {
    PolicyPatch.Outcome outcome = PolicyPatch.parse(json("{\"expectedRevisions\": {\"rateLimits\": 6}, \"overload\": null}")).apply(withAll);
    assertThat(outcome).isEqualTo(new PolicyPatch.Conflict(Section.RATE_LIMITS, 6, 7));
    assertThat(PolicyPatch.parse(json("{\"expectedRevisions\": {\"rateLimits\": 7, \"other\": 1}, \"overload\": null}")).apply(withAll))
        .isInstanceOf(PolicyPatch.Applied.class);
  }

  @Test
  void firstProblemNamesTheFieldPath() {
    assertThatThrownBy(() -> PolicyPatch.parse(json("{\"overload\": {\"inbound\": {\"maxInFlight\": 0, \"startShare\": 2}}}")))
        .isInstanceOfSatisfying(PolicyPatch.InvalidPatchException.class,
            e -> assertThat(e.problem().field()).isEqualTo("overload.inbound.maxInFlight"));
    assertThatThrownBy(() -> PolicyPatch.parse(json("{\"rateLimits\": []}")))
        .isInstanceOfSatisfying(PolicyPatch.InvalidPatchException.class, e -> assertThat(e.problem().field()).isEqualTo("rateLimits"));
    assertThatThrownBy(() -> PolicyPatch.parse(json("{\"expectedRevisions\": {\"overload\": 1.5}}")))
        .isInstanceOf(PolicyPatch.InvalidPatchException.class);
    assertThatThrownBy(() -> PolicyPatch.parse(json("[]"))).isInstanceOf(PolicyPatch.InvalidPatchException.class);
  }

  @Test
  void crossFieldRulesTakeTheDeploymentsValues() throws Exception {
    JsonNode body = json("{\"overload\": {\"inbound\": {\"startShare\": 0.6}}}");
    assertThat(PolicyPatch.parse(body).changes()).containsKey(Section.OVERLOAD);
    DeploymentDefaults tight = DeploymentDefaults.fromEnvironment(Map.of("HTTP_ADMISSION_CONTINUATION_SHARE", "0.5",
        "HTTP_ADMISSION_START_SHARE", "0.5"));
    assertThatThrownBy(() -> PolicyPatch.parse(body, tight))
        .isInstanceOfSatisfying(PolicyPatch.InvalidPatchException.class,
            e -> assertThat(e.problem().field()).isEqualTo("overload.inbound.startShare"));
  }

  @Test
  void dryRunIsParsed() throws Exception {
    assertThat(PolicyPatch.parse(json("{\"dryRun\": true}")).dryRun()).isTrue();
    assertThat(PolicyPatch.parse(json("{}")).dryRun()).isFalse();
  }
}
