package io.spillway.central.console;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.charset.StandardCharsets;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.junit.jupiter.params.provider.NullAndEmptySource;
import org.junit.jupiter.params.provider.ValueSource;

class ConsoleFilesTest {

  private final ConsoleFiles files = ConsoleFiles.shipped();

  @ParameterizedTest
  @CsvSource({
      "index.html, text/html; charset=utf-8, <!doctype html>",
      "app.js, text/javascript; charset=utf-8, //",
      "console.css, text/css; charset=utf-8, /*",
      "icon.svg, image/svg+xml, <svg"})
  void servesTheShippedFilesWithTheirMediaTypes(String name, String mediaType, String start) {
    ConsoleFiles.File file = files.file(name).orElseThrow();
    assertThat(file.mediaType()).isEqualTo(mediaType);
    assertThat(new String(file.bytes(), StandardCharsets.UTF_8)).startsWith(start);
    assertThat(files.file(name).orElseThrow()).as("read once, then kept").isSameAs(file);
  }

  @ParameterizedTest
  @NullAndEmptySource
  @ValueSource(strings = {"../openapi.yaml", "..%2Fopenapi.yaml", "../logback.xml", "logback.xml", "openapi.yaml",
      "db/migration/V1__central.sql", "/app.js", "a/app.js", "app.js/", "App.js", "app.JS", ".js", "-app.js", "app.js.map",
      "app.json", "app .js", "app.js\u0000.css", "nothing-here.js"})
  void findsNothingOutsideTheConsoleOrUnderAnotherName(String name) {
    assertThat(files.file(name)).isEmpty();
  }
}
