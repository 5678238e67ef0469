package io.spillway.edge.admin;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.text.ParseException;
import java.time.Clock;
import java.time.ZoneOffset;
import java.time.format.DateTimeFormatter;
import java.util.Locale;
import jdk.jfr.Configuration;
import jdk.jfr.Recording;

/**
 * {@code /cpuprofile} and {@code /memoryprofile} (POST, {@code ?enable=y|n}): start or stop a Java
 * Flight Recorder recording, the JVM's counterpart of Envoy's gperftools profiles. The CPU profile
 * uses JFR's {@code profile} settings (execution samples, locks, I/O, GC); the memory profile only
 * allocation samples, old-object samples and heap summaries. The recording is written, when
 * stopped, to a {@code .jfr} file in the profile directory; both answers name the file. Stopping
 * a profile that is not running, or starting one that is, is a 400.
 *
 * <p>Only the admin event loop calls {@link #handle}, so the recording state needs no lock.
 */
final class ProfileEndpoint implements AdminEndpoint {
  private static final DateTimeFormatter FILE_TIME =
      DateTimeFormatter.ofPattern("yyyyMMdd-HHmmss", Locale.ROOT).withZone(ZoneOffset.UTC);
  /** Bounds the recording's disk use if nobody stops it. */
  private static final long MAX_RECORDING_BYTES = 512L * 1024 * 1024;

  /** What is profiled. */
  enum Kind {
    CPU("cpu"),
    MEMORY("memory");

    private final String label;

    Kind(String label) {
      this.label = label;
    }
  }

  private final Kind kind;
  private final Path directory;
  private final Clock clock;
  private Recording recording;
  private Path file;

  /** @param directory where recordings are written (the admin's {@code java.io.tmpdir} by default) */
  ProfileEndpoint(Kind kind, Path directory, Clock clock) {
    this.kind = kind;
    this.directory = directory;
    this.clock = clock;
  }

  @Override
  public String help() {
    return "enable/disable the " + kind.label + " profiler (a JFR recording); ?enable=y|n";
  }

  @Override
  public boolean mutating() {
    return true;
  }

  @Override
  public AdminResponse handle(AdminRequest request) {
    String enable = request.param("enable");
    if ("y".equals(enable)) {
      return start();
    }
    if ("n".equals(enable)) {
      return stop();
    }
    return AdminResponse.badRequest("?enable=y or ?enable=n is required");
  }

  private AdminResponse start() {
    if (recording != null) {
      return AdminResponse.badRequest("the " + kind.label + " profiler is already running, recording to " + file);
    }
    Path target = directory.resolve("spillway-" + kind.label + "-" + ProcessHandle.current().pid() + "-"
        + FILE_TIME.format(clock.instant()) + ".jfr");
    Recording r;
    try {
      r = newRecording();
      r.setName("spillway-" + kind.label + "profile");
      r.setToDisk(true);
      r.setMaxSize(MAX_RECORDING_BYTES);
      r.setDestination(target);
      r.start();
    } catch (IOException | ParseException | RuntimeException e) {
      return AdminResponse.text(500, "cannot start the " + kind.label + " profiler: " + e.getMessage() + "\n");
    }
    recording = r;
    file = target;
    return AdminResponse.text(200, "OK: " + kind.label + " profiler started, recording to " + target + "\n");
  }

  private AdminResponse stop() {
    if (recording == null) {
      return AdminResponse.badRequest("the " + kind.label + " profiler is not running");
    }
    Recording r = recording;
    Path written = file;
    recording = null;
    file = null;
    try {
      r.stop(); // writes the destination file
    } catch (RuntimeException e) {
      return AdminResponse.text(500, "cannot stop the " + kind.label + " profiler: " + e.getMessage() + "\n");
    } finally {
      r.close();
    }
    if (!Files.exists(written)) {
      return AdminResponse.text(500, "the " + kind.label + " profile was not written to " + written + "\n");
    }
    return AdminResponse.text(200, "OK: " + kind.label + " profile written to " + written + "\n");
  }

  private Recording newRecording() throws IOException, ParseException {
    return switch (kind) {
      case CPU -> new Recording(Configuration.getConfiguration("profile"));
      case MEMORY -> {
        Recording r = new Recording();
        r.enable("jdk.ObjectAllocationSample").withStackTrace().with("throttle", "150/s");
        r.enable("jdk.OldObjectSample").withStackTrace().with("cutoff", "0 ns");
        r.enable("jdk.GCHeapSummary");
        r.enable("jdk.GarbageCollection");
        r.enable("jdk.MetaspaceSummary");
        yield r;
      }
    };
  }
}
