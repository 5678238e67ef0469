package io.spillway.central.console;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.net.URISyntaxException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * The shipped console's files keep to what its Content-Security-Policy allows and to "nothing
 * leaves central's origin": no inline script or style, no markup built from strings, no address
 * of another origin, and every file the page or a module names is one central serves.
 */
class ConsoleSourcesTest {

  private static final Pattern IMPORT = Pattern.compile("(?m)^import\\s[^;]*?from\\s+'([^']+)';");
  private static final Pattern PAGE_REFERENCE = Pattern.compile("(?:src|href)=\"([^\"]*)\"");
  private static Path directory;
  private static List<Path> files;

  @BeforeAll
  static void listTheShippedFiles() throws IOException, URISyntaxException {
    directory = Path.of(ConsoleFiles.class.getResource("/console").toURI());
    try (Stream<Path> listed = Files.list(directory)) {
      files = listed.sorted().toList();
    }
    assertThat(files).extracting(p -> p.getFileName().toString()).contains("index.html", "app.js", "console.css");
  }

  private static String read(Path file) {
    try {
      return Files.readString(file);
    } catch (IOException e) {
      throw new java.io.UncheckedIOException(e);
    }
  }

  private static List<Path> withSuffix(String suffix) {
    return files.stream().filter(p -> p.getFileName().toString().endsWith(suffix)).toList();
  }

  @Test
  void everyShippedFileIsOneCentralServes() {
    ConsoleFiles served = ConsoleFiles.shipped();
    for (Path file : files) {
      assertThat(served.file(file.getFileName().toString())).as(file.getFileName().toString()).isPresent();
    }
  }

  @Test
  void thePageHasNoInlineScriptStyleOrHandlerAndNamesOnlyConsoleFiles() {
    String page = read(directory.resolve("index.html"));
    assertThat(page).doesNotContainPattern("<script(?![^>]*\\ssrc=)").doesNotContain("<style", " style=")
        .doesNotContainPattern("\\son[a-z]+=");
    Matcher reference = PAGE_REFERENCE.matcher(page);
    List<String> named = new ArrayList<>();
    while (reference.find()) {
      named.add(reference.group(1));
    }
    assertThat(named).isNotEmpty();
    for (String target : named) {
      if (target.startsWith("#")) {
        continue;
      }
      assertThat(target).as("a file of the console").startsWith("/console/");
      assertThat(ConsoleFiles.shipped().file(target.substring("/console/".length()))).as(target).isPresent();
    }
  }

  @Test
  void modulesImportOnlyShippedModules() {
    for (Path module : withSuffix(".js")) {
      Matcher imported = IMPORT.matcher(read(module));
      while (imported.find()) {
        String target = imported.group(1);
        assertThat(target).as(module.getFileName() + " imports " + target).matches("\\./[a-z0-9-]+\\.js");
        assertThat(directory.resolve(target.substring(2))).as(module.getFileName() + " imports " + target).isRegularFile();
      }
    }
  }

  @Test
  void scriptsBuildNoMarkupFromStringsSetNoInlineStyleAndEvaluateNothing() {
    for (Path module : withSuffix(".js")) {
      assertThat(read(module)).as(module.getFileName().toString())
          .doesNotContain("innerHTML", "outerHTML", "insertAdjacentHTML", "document.write", "eval(", "new Function",
              "setAttribute('style'", ".style.", "cssText", "javascript:", "localStorage", "sessionStorage");
    }
  }

  @Test
  void nothingNamesAnotherOrigin() {
    for (Path file : files) {
      // The SVG namespace is a name (in icon.svg's xmlns, and charts.js's createElementNS), never fetched.
      String text = read(file).replace("xmlns=\"http://www.w3.org/2000/svg\"", "")
          .replace("const SVG = 'http://www.w3.org/2000/svg';", "");
      assertThat(text).as(file.getFileName().toString()).doesNotContain("http://", "https://", "//cdn", "@import", "url(");
    }
  }
}
