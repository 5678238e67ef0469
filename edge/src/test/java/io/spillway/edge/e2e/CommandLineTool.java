package io.spillway.edge.e2e;

import java.io.File;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

/**
 * An external program the E2E tests drive (curl, h2load, openssl), found on {@code PATH}. A missing
 * program fails the test with the package to install: CI installs them, so a silent skip would
 * hide a broken pipeline.
 */
record CommandLineTool(Path executable) {

  /**
   * The program {@code name} from {@code PATH}.
   *
   * @throws AssertionError naming {@code debianPackage} when it is not installed
   */
  static CommandLineTool require(String name, String debianPackage) {
    String path = System.getenv().getOrDefault("PATH", "");
    for (String dir : path.split(File.pathSeparator)) {
      if (dir.isEmpty()) {
        continue;
      }
      Path candidate = Path.of(dir, name);
      if (Files.isRegularFile(candidate) && Files.isExecutable(candidate)) {
        return new CommandLineTool(candidate);
      }
    }
    throw new AssertionError("'" + name + "' is not installed (not on PATH: " + path + "); the E2E tests need it."
        + " Install it: apt-get install " + debianPackage);
  }

  /**
   * Runs the program with {@code args} to completion, killing it after {@code timeout}.
   *
   * @throws AssertionError when it does not finish in time
   */
  Result run(Duration timeout, String... args) {
    List<String> command = new ArrayList<>();
    command.add(executable.toString());
    command.addAll(List.of(args));
    try {
      Path out = Files.createTempFile("e2e-tool-", ".out");
      Path err = Files.createTempFile("e2e-tool-", ".err");
      try {
        Process process = new ProcessBuilder(command)
            .redirectOutput(out.toFile())
            .redirectError(err.toFile())
            .redirectInput(ProcessBuilder.Redirect.from(new File("/dev/null")))
            .start();
        if (!process.waitFor(timeout.toMillis(), TimeUnit.MILLISECONDS)) {
          process.destroyForcibly();
          process.waitFor(10, TimeUnit.SECONDS);
          throw new AssertionError(command + " did not finish within " + timeout + "; stdout:\n"
              + Files.readString(out, StandardCharsets.UTF_8) + "\nstderr:\n" + Files.readString(err, StandardCharsets.UTF_8));
        }
        return new Result(command, process.exitValue(), Files.readString(out, StandardCharsets.UTF_8),
            Files.readString(err, StandardCharsets.UTF_8));
      } finally {
        Files.deleteIfExists(out);
        Files.deleteIfExists(err);
      }
    } catch (IOException e) {
      throw new UncheckedIOException("cannot run " + command, e);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException("interrupted running " + command, e);
    }
  }

  /** What a finished run printed and returned. */
  record Result(List<String> command, int exitCode, String stdout, String stderr) {
    @Override
    public String toString() {
      return command + " exited " + exitCode + "\nstdout:\n" + stdout + "\nstderr:\n" + stderr;
    }
  }
}
