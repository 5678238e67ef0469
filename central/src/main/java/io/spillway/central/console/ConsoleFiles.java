package io.spillway.central.console;

import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * The console's static files, from one classpath directory (in the jar, {@code console/}). Only
 * names of the form {@code name.js}, {@code name.css}, {@code name.svg} or {@code index.html} —
 * lower-case letters, digits and dashes, no directories — are ever looked up, so a request cannot
 * reach another resource of the jar. A file read once is kept: the jar does not change while
 * central runs.
 */
public final class ConsoleFiles {

  private static final Pattern NAME = Pattern.compile("[a-z0-9][a-z0-9-]{0,63}\\.(js|css|svg|html)");
  private static final Map<String, String> MEDIA_TYPES = Map.of(
      "js", "text/javascript; charset=utf-8",
      "css", "text/css; charset=utf-8",
      "svg", "image/svg+xml",
      "html", "text/html; charset=utf-8");

  /**
   * One file.
   *
   * @param mediaType its {@code Content-Type}
   * @param bytes its content
   */
  public record File(String mediaType, byte[] bytes) {}

  private final String directory;
  private final Map<String, File> read = new ConcurrentHashMap<>();

  /**
   * Files under a classpath directory.
   *
   * @param directory e.g. {@code /console}
   */
  public ConsoleFiles(String directory) {
    this.directory = Objects.requireNonNull(directory, "directory");
  }

  /** The console shipped in the jar. */
  public static ConsoleFiles shipped() {
    return new ConsoleFiles("/console");
  }

  /** The file of that name, or empty when the name is not a console file's or there is none. */
  public Optional<File> file(String name) {
    if (name == null) {
      return Optional.empty();
    }
    Matcher matcher = NAME.matcher(name);
    if (!matcher.matches()) {
      return Optional.empty();
    }
    File cached = read.get(name);
    if (cached != null) {
      return Optional.of(cached);
    }
    try (InputStream in = ConsoleFiles.class.getResourceAsStream(directory + "/" + name)) {
      if (in == null) {
        return Optional.empty();
      }
      File file = new File(MEDIA_TYPES.get(matcher.group(1)), in.readAllBytes());
      read.put(name, file);
      return Optional.of(file);
    } catch (IOException e) {
      throw new UncheckedIOException("cannot read console file " + name, e);
    }
  }
}
