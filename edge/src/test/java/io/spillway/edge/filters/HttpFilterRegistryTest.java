package io.spillway.edge.filters;

import static org.assertj.core.api.Assertions.assertThat;

import io.spillway.edge.config.ExtensionRegistry;
import java.util.stream.Collectors;
import org.junit.jupiter.api.Test;

/** The hot path runs exactly the HTTP filters the configuration accepts, under the same names. */
class HttpFilterRegistryTest {

  @Test
  void everyHttpFilterTheTranslatorAcceptsHasAFactoryAndNoOtherDoes() {
    var accepted = ExtensionRegistry.standard().extensions().stream()
        .filter(e -> e.category() == ExtensionRegistry.Category.HTTP_FILTER)
        .map(ExtensionRegistry.Extension::name)
        .collect(Collectors.toSet());
    assertThat(HttpFilterRegistry.names()).containsExactlyInAnyOrderElementsOf(accepted);
  }
}
