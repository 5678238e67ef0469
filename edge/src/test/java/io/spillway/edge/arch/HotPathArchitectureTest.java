package io.spillway.edge.arch;

import static com.tngtech.archunit.lang.syntax.ArchRuleDefinition.noClasses;

import com.tngtech.archunit.core.domain.JavaClasses;
import com.tngtech.archunit.core.importer.ClassFileImporter;
import com.tngtech.archunit.core.importer.ImportOption;
import org.junit.jupiter.api.Test;

/**
 * The hot-path packages (listener, http, http2, router, upstream, filters, accesslog) never see
 * protobuf, gRPC, JDBC or blocking I/O APIs; configuration reaches them only as the records of
 * {@code config}. In the access log package only the flush thread's side ({@code BufferedLogFile})
 * touches files and threads.
 */
class HotPathArchitectureTest {

  private static final String[] HOT_PATH = {
      "io.spillway.edge.listener..", "io.spillway.edge.http..", "io.spillway.edge.http2..", "io.spillway.edge.router..",
      "io.spillway.edge.upstream..", "io.spillway.edge.filters..", "io.spillway.edge.accesslog.."};
  private static final String FLUSH_THREAD_SIDE = "io.spillway.edge.accesslog.BufferedLogFile";

  private final JavaClasses classes = new ClassFileImporter()
      .withImportOption(ImportOption.Predefined.DO_NOT_INCLUDE_TESTS)
      .importPackages("io.spillway.edge");

  @Test
  void hotPathDoesNotTouchProtobufOrGrpc() {
    noClasses().that().resideInAnyPackage(HOT_PATH)
        .should().dependOnClassesThat().resideInAnyPackage("com.google.protobuf..", "io.grpc..", "io.envoyproxy..")
        .check(classes);
  }

  @Test
  void hotPathDoesNotUseJdbcOrBlockingIo() {
    noClasses().that().resideInAnyPackage(HOT_PATH)
        .and().doNotHaveFullyQualifiedName(FLUSH_THREAD_SIDE)
        .should().dependOnClassesThat().resideInAnyPackage("java.sql..", "javax.sql..", "java.io..", "java.nio.file..")
        .orShould().dependOnClassesThat().haveFullyQualifiedName("java.lang.Thread")
        .check(classes);
  }

  @Test
  void hotPathDoesNotDependOnControlSide() {
    noClasses().that().resideInAnyPackage(HOT_PATH)
        .should().dependOnClassesThat().resideInAnyPackage("io.spillway.edge.server..", "io.spillway.edge.admin..")
        .check(classes);
  }
}
