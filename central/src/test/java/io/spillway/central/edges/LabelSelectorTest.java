package io.spillway.central.edges;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.Map;
import org.junit.jupiter.api.Test;

class LabelSelectorTest {

  private final Map<String, String> prodWeb = Map.of("env", "prod", "tier", "web");

  @Test
  void requirementsAllHold() {
    assertThat(LabelSelector.parse("env=prod").matches(prodWeb)).isTrue();
    assertThat(LabelSelector.parse("env==prod,tier=web").matches(prodWeb)).isTrue();
    assertThat(LabelSelector.parse("env=prod,tier=api").matches(prodWeb)).isFalse();
    assertThat(LabelSelector.parse("env!=staging").matches(prodWeb)).isTrue();
    assertThat(LabelSelector.parse("tier").matches(prodWeb)).isTrue();
    assertThat(LabelSelector.parse("!zone").matches(prodWeb)).isTrue();
    assertThat(LabelSelector.parse("!tier").matches(prodWeb)).isFalse();
    assertThat(LabelSelector.parse("").matches(prodWeb)).isTrue();
    assertThat(LabelSelector.parse(null).matches(Map.of())).isTrue();
  }

  @Test
  void badRequirementsAreNamed() {
    assertThatThrownBy(() -> LabelSelector.parse("=x")).hasMessageContaining("=x");
    assertThatThrownBy(() -> LabelSelector.parse("env=prod,,")).isInstanceOf(IllegalArgumentException.class);
    assertThatThrownBy(() -> LabelSelector.parse("bad key=x")).hasMessageContaining("bad key");
  }
}
