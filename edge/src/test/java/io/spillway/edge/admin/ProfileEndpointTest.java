package io.spillway.edge.admin;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Instant;
import java.time.ZoneOffset;
import java.util.List;
import jdk.jfr.consumer.RecordedEvent;
import jdk.jfr.consumer.RecordingFile;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class ProfileEndpointTest {
  private static final Clock CLOCK = Clock.fixed(Instant.parse("2025-01-01T12:00:00Z"), ZoneOffset.UTC);

  @TempDir
  Path directory;

  @Test
  void cpuProfileStartsAndStopsAJfrRecordingWrittenToTheNamedFile() throws Exception {
    ProfileEndpoint cpu = new ProfileEndpoint(ProfileEndpoint.Kind.CPU, directory, CLOCK);

    AdminResponse started = cpu.handle(Requests.post("/cpuprofile?enable=y"));
    assertThat(started.status()).isEqualTo(200);
    assertThat(started.bodyText()).contains(directory.toString()).contains("-20250101-120000.jfr");
    assertThat(cpu.handle(Requests.post("/cpuprofile?enable=y")).status()).isEqualTo(400);

    AdminResponse stopped = cpu.handle(Requests.post("/cpuprofile?enable=n"));
    assertThat(stopped.status()).isEqualTo(200);
    Path file = writtenFile(stopped);
    assertThat(file.getParent()).isEqualTo(directory);
    assertThat(file.getFileName().toString()).startsWith("spillway-cpu-");
    assertThat(Files.size(file)).isPositive();
    List<RecordedEvent> events = RecordingFile.readAllEvents(file);
    assertThat(events).isNotEmpty();
  }

  @Test
  void memoryProfileRecordsAllocationsNotCpuSamples() throws Exception {
    ProfileEndpoint memory = new ProfileEndpoint(ProfileEndpoint.Kind.MEMORY, directory, CLOCK);

    assertThat(memory.handle(Requests.post("/memoryprofile?enable=y")).status()).isEqualTo(200);
    allocate();
    AdminResponse stopped = memory.handle(Requests.post("/memoryprofile?enable=n"));

    assertThat(stopped.status()).isEqualTo(200);
    Path file = writtenFile(stopped);
    assertThat(file.getFileName().toString()).startsWith("spillway-memory-");
    List<String> recorded = RecordingFile.readAllEvents(file).stream().map(e -> e.getEventType().getName()).toList();
    assertThat(recorded).contains("jdk.ObjectAllocationSample").doesNotContain("jdk.ExecutionSample");
  }

  private static long allocate() {
    long sum = 0;
    for (int i = 0; i < 2_000; i++) {
      byte[] chunk = new byte[64 * 1024];
      chunk[i % chunk.length] = (byte) i;
      sum += chunk[0];
    }
    return sum;
  }

  @Test
  void stoppingWhatIsNotRunningOrAskingNothingIsA400() {
    ProfileEndpoint cpu = new ProfileEndpoint(ProfileEndpoint.Kind.CPU, directory, CLOCK);

    AdminResponse r = cpu.handle(Requests.post("/cpuprofile?enable=n"));
    assertThat(r.status()).isEqualTo(400);
    assertThat(r.bodyText()).contains("not running");
    assertThat(cpu.handle(Requests.post("/cpuprofile")).status()).isEqualTo(400);
    assertThat(cpu.handle(Requests.post("/cpuprofile?enable=maybe")).status()).isEqualTo(400);
    assertThat(cpu.mutating()).isTrue();
  }

  private static Path writtenFile(AdminResponse stopped) {
    String body = stopped.bodyText().trim();
    return Path.of(body.substring(body.indexOf(" written to ") + " written to ".length()));
  }
}
