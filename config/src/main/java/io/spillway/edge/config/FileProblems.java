package io.spillway.edge.config;

import java.io.IOException;
import java.nio.file.AccessDeniedException;
import java.nio.file.FileSystemException;
import java.nio.file.NoSuchFileException;
import java.nio.file.NotDirectoryException;

/** Why a file named in the configuration could not be read, in words an operator reads (no exception names). */
final class FileProblems {
  private FileProblems() {}

  /** "no such file", "permission denied", "is a directory", or the system's own reason. */
  static String describe(Exception e) {
    if (e instanceof NoSuchFileException) {
      return "no such file";
    }
    if (e instanceof AccessDeniedException) {
      return "permission denied";
    }
    if (e instanceof NotDirectoryException) {
      return "a part of the path is not a directory";
    }
    if (e instanceof FileSystemException fs && fs.getReason() != null) {
      return fs.getReason().toLowerCase(java.util.Locale.ROOT); // "Is a directory", …
    }
    if (e instanceof IOException && e.getMessage() != null && e.getMessage().contains("Is a directory")) {
      return "is a directory";
    }
    return e.getMessage() == null ? "unreadable" : e.getMessage();
  }
}
