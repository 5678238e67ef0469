package io.spillway.edge.overload.monitor;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;

/** Reading the one-line files of the cgroup file system (v1 and v2). */
final class CgroupFiles {

  /**
   * cgroup v1 shows "no limit" as the largest page-aligned long (9223372036854771712 on x86-64);
   * any limit at or above 2^62 bytes is read as none.
   */
  static final long V1_UNLIMITED_THRESHOLD = 1L << 62;

  private CgroupFiles() {}

  /** The file's content without surrounding white space. */
  static String read(Path file) throws IOException {
    return Files.readString(file, StandardCharsets.US_ASCII).trim();
  }

  /** A non-negative integer file. */
  static long readLong(Path file) throws IOException, MonitorReadException {
    return parseLong(read(file), file);
  }

  static long parseLong(String text, Path file) throws MonitorReadException {
    try {
      long value = Long.parseLong(text);
      if (value < 0) {
        throw new MonitorReadException(file + ": negative value " + text);
      }
      return value;
    } catch (NumberFormatException e) {
      throw new MonitorReadException(file + ": not an integer: \"" + text + "\"", e);
    }
  }
}
