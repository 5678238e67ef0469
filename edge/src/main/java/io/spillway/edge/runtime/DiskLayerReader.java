package io.spillway.edge.runtime;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;
import java.util.TreeMap;
import java.util.stream.Stream;

/**
 * Reads a disk layer as Envoy does: every regular file below the layer's directory is one key, its
 * path relative to that directory with {@code /} turned into {@code .}; the value is the file's
 * text without lines that start with {@code #} and without trailing white space. A directory that
 * does not exist is an empty layer. Runs on the runtime's own thread, never on a worker.
 */
final class DiskLayerReader {
  /** Envoy's bound on the directory walk. */
  static final int MAX_DEPTH = 16;
  /** A runtime value is a short piece of text; a larger file is a mistake, not a value. */
  static final long MAX_FILE_BYTES = 64 * 1024;

  private DiskLayerReader() {}

  /** Whether the layer's directory exists (as Envoy counts {@code override_dir_exists}). */
  static boolean exists(Path dir) {
    return Files.isDirectory(dir);
  }

  /**
   * @throws IOException when a file cannot be read, is too large or the tree is deeper than
   *     {@link #MAX_DEPTH}; the caller keeps the layer's previous values
   */
  static Map<String, String> read(Path dir) throws IOException {
    Map<String, String> values = new TreeMap<>();
    if (!Files.isDirectory(dir)) {
      return values;
    }
    Path root = dir.toRealPath();
    try (Stream<Path> files = Files.walk(root, MAX_DEPTH + 1, java.nio.file.FileVisitOption.FOLLOW_LINKS)) {
      for (Path file : (Iterable<Path>) files::iterator) {
        if (!Files.isRegularFile(file)) {
          continue;
        }
        Path relative = root.relativize(file);
        if (relative.getNameCount() > MAX_DEPTH) {
          throw new IOException("runtime tree " + dir + " is deeper than " + MAX_DEPTH + " directories");
        }
        if (Files.size(file) > MAX_FILE_BYTES) {
          throw new IOException("runtime file " + file + " is larger than " + MAX_FILE_BYTES + " bytes");
        }
        String key = relative.toString().replace(java.io.File.separatorChar, '.');
        values.put(key, value(Files.readString(file, StandardCharsets.UTF_8)));
      }
    } catch (java.io.UncheckedIOException e) {
      throw e.getCause();
    }
    return values;
  }

  /** The file's text without comment lines and trailing white space. */
  static String value(String text) {
    StringBuilder out = new StringBuilder(text.length());
    for (String line : text.split("\n", -1)) {
      if (line.startsWith("#")) {
        continue;
      }
      if (!out.isEmpty()) {
        out.append('\n');
      }
      out.append(line);
    }
    int end = out.length();
    while (end > 0 && Character.isWhitespace(out.charAt(end - 1))) {
      end--;
    }
    return out.substring(0, end);
  }
}
