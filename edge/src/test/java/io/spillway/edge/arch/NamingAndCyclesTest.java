package io.spillway.edge.arch;

import static com.tngtech.archunit.library.dependencies.SlicesRuleDefinition.slices;
import static org.assertj.core.api.Assertions.assertThat;

import com.tngtech.archunit.core.domain.JavaClass;
import com.tngtech.archunit.core.domain.JavaClasses;
import com.tngtech.archunit.core.importer.ClassFileImporter;
import com.tngtech.archunit.core.importer.ImportOption;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.stream.Collectors;
import org.junit.jupiter.api.Test;

/**
 * STYLE rule 12: one name, one thing — the edge's packages depend on each other one way only, and
 * no two top-level types of the main code (the edge's and the policy module's it uses) share a
 * simple name.
 */
class NamingAndCyclesTest {

  private final JavaClasses classes = new ClassFileImporter()
      .withImportOption(ImportOption.Predefined.DO_NOT_INCLUDE_TESTS)
      .importPackages("io.spillway.edge");

  @Test
  void packagesHaveNoCycles() {
    slices().matching("io.spillway.edge.(**)")
        .should().beFreeOfCycles()
        .check(classes);
  }

  @Test
  void topLevelTypesHaveUniqueSimpleNames() {
    JavaClasses all = new ClassFileImporter()
        .withImportOption(ImportOption.Predefined.DO_NOT_INCLUDE_TESTS)
        .importPackages("io.spillway");
    Map<String, List<String>> byName = all.stream()
        .filter(c -> c.isTopLevelClass() && !c.getSimpleName().equals("package-info"))
        .filter(c -> !c.getPackageName().equals("io.spillway.policy.v1")) // generated from the policy's xDS proto
        .collect(Collectors.groupingBy(JavaClass::getSimpleName, TreeMap::new,
            Collectors.mapping(JavaClass::getName, Collectors.toList())));
    byName.values().removeIf(names -> names.size() < 2);
    assertThat(byName).as("types sharing a simple name").isEmpty();
  }
}
