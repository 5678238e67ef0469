package io.spillway.edge.runtime;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

class RuntimeSnapshotTest {
  private final RuntimeSnapshot snapshot = new RuntimeSnapshot(List.of("base", "override"), List.of(
      Map.of("n", "10", "flag", "TRUE", "text", "x", "neg", "-3", "frac", "2.5", "pct", "25", "share", "5/10000"),
      Map.of("n", "20")));

  @Test
  void aLaterLayerWins() {
    assertThat(snapshot.getInteger("n", 0)).isEqualTo(20);
    assertThat(snapshot.layerValues().get(0)).containsEntry("n", "10");
  }

  @Test
  void integerAndBooleanLookupsTakeOnlyValuesOfTheirKind() {
    assertThat(snapshot.getInteger("text", 7)).isEqualTo(7);
    assertThat(snapshot.getInteger("neg", 7)).isEqualTo(7);
    assertThat(snapshot.getInteger("frac", 7)).isEqualTo(7);
    assertThat(snapshot.getInteger("missing", 7)).isEqualTo(7);
    assertThat(snapshot.getBoolean("flag", false)).isTrue();
    assertThat(snapshot.getBoolean("n", false)).isFalse();
  }

  @Test
  void featureEnabledReadsAWholeNumberAsAPercentageAndAFractionAsItIs() {
    // 25 of 100: random values 0..24 of each hundred pass.
    assertThat(snapshot.featureEnabled("pct", 0, 100, 24)).isTrue();
    assertThat(snapshot.featureEnabled("pct", 0, 100, 25)).isFalse();
    assertThat(snapshot.featureEnabled("pct", 0, 100, 124)).isTrue();
    // 5 of 10000.
    assertThat(snapshot.featureEnabled("share", 100, 100, 4)).isTrue();
    assertThat(snapshot.featureEnabled("share", 100, 100, 5)).isFalse();
    // Absent or not a number: the default.
    assertThat(snapshot.featureEnabled("missing", 1, 2, 0)).isTrue();
    assertThat(snapshot.featureEnabled("missing", 1, 2, 1)).isFalse();
    assertThat(snapshot.featureEnabled("text", 100, 100, 99)).isTrue();
    assertThat(snapshot.featureEnabled("", 0, 100, 0)).isFalse();
  }

  @Test
  void anEmptySnapshotAnswersDefaults() {
    assertThat(RuntimeSnapshot.EMPTY.getInteger("n", 3)).isEqualTo(3);
    assertThat(RuntimeSnapshot.EMPTY.layerNames()).isEmpty();
  }
}
