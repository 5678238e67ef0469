package io.spillway.edge.overload;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.within;

import io.spillway.edge.config.OverloadConfig;
import io.spillway.edge.overload.monitor.BufferMemoryMonitor;
import io.spillway.edge.overload.monitor.CgroupMemoryMonitor;
import io.spillway.edge.overload.monitor.ContainerCpuMonitor;
import io.spillway.edge.overload.monitor.EventLoopLagMonitor;
import io.spillway.edge.overload.monitor.FixedHeapMonitor;
import io.spillway.edge.overload.monitor.GcPressureMonitor;
import io.spillway.edge.overload.monitor.HostCpuMonitor;
import io.spillway.edge.overload.monitor.InjectedResourceMonitor;
import io.spillway.edge.overload.monitor.MonitorReadException;
import io.spillway.edge.overload.monitor.StandardMonitors;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.OptionalLong;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Each monitor against injected sources: fake suppliers, and cgroup and proc trees in temp directories. */
class MonitorsTest {

  @TempDir
  Path dir;

  /** The outcome of one measurement. */
  private record Outcome(Double pressure, Exception error) {}

  private static Outcome measure(ResourceMonitor monitor) {
    Outcome[] outcome = new Outcome[1];
    monitor.updateResourceUsage(new ResourceMonitor.Callbacks() {
      @Override
      public void onSuccess(double pressure) {
        outcome[0] = new Outcome(pressure, null);
      }

      @Override
      public void onFailure(Exception error) {
        outcome[0] = new Outcome(null, error);
      }
    });
    assertThat(outcome[0]).as("the monitor answered synchronously").isNotNull();
    return outcome[0];
  }

  private static double pressure(ResourceMonitor monitor) {
    Outcome outcome = measure(monitor);
    assertThat(outcome.error()).isNull();
    return outcome.pressure();
  }

  private static Exception failure(ResourceMonitor monitor) {
    Outcome outcome = measure(monitor);
    assertThat(outcome.pressure()).isNull();
    return outcome.error();
  }

  private Path write(String relative, String content) throws IOException {
    Path file = dir.resolve(relative);
    Files.createDirectories(file.getParent());
    Files.writeString(file, content);
    return file;
  }

  // --- fixed heap, buffer memory, event loop lag ---------------------------------------------

  @Test
  void fixedHeapIsUsedOverTheConfiguredMaximum() {
    AtomicLong used = new AtomicLong(512);
    FixedHeapMonitor monitor = new FixedHeapMonitor(2048, used::get);

    assertThat(pressure(monitor)).isEqualTo(0.25);
    used.set(-1);
    assertThat(failure(monitor)).hasMessage("heap usage is unavailable");
    assertThatThrownBy(() -> new FixedHeapMonitor(0, used::get)).isInstanceOf(IllegalArgumentException.class);
  }

  @Test
  void bufferMemoryIsUsedOverTheConfiguredOrReportedLimit() {
    AtomicLong used = new AtomicLong(300);
    assertThat(pressure(new BufferMemoryMonitor(used::get, () -> 1000, OptionalLong.empty()))).isEqualTo(0.3);
    assertThat(pressure(new BufferMemoryMonitor(used::get, () -> 1000, OptionalLong.of(600)))).isEqualTo(0.5);
    assertThat(failure(new BufferMemoryMonitor(used::get, () -> 0, OptionalLong.empty())))
        .hasMessage("buffer memory limit is unknown");
    used.set(-1);
    assertThat(failure(new BufferMemoryMonitor(used::get, () -> 1000, OptionalLong.empty())))
        .hasMessage("buffer memory usage is not tracked");
  }

  @Test
  void eventLoopLagIsTheWorstLagOverTheTargetCappedAtOne() {
    AtomicLong lag = new AtomicLong(Duration.ofMillis(25).toNanos());
    EventLoopLagMonitor monitor = new EventLoopLagMonitor(lag::get, Duration.ofMillis(50));

    assertThat(pressure(monitor)).isEqualTo(0.5);
    lag.set(Duration.ofMillis(500).toNanos());
    assertThat(pressure(monitor)).isEqualTo(1.0);
    lag.set(-1);
    assertThat(failure(monitor)).isInstanceOf(MonitorReadException.class);
  }

  // --- GC pressure ---------------------------------------------------------------------------

  @Test
  void gcPressureIsTheShareOfWallTimeInGcOverTheWindow() {
    AtomicLong gcMillis = new AtomicLong(1_000);
    AtomicLong nanos = new AtomicLong(0);
    GcPressureMonitor monitor = new GcPressureMonitor(gcMillis::get, nanos::get, Duration.ofSeconds(10));

    // 1 s later, 100 ms more in GC: 10%.
    nanos.addAndGet(Duration.ofSeconds(1).toNanos());
    gcMillis.addAndGet(100);
    assertThat(pressure(monitor)).isCloseTo(0.10, within(1e-12));

    // Nine more seconds with 200 ms of GC each: (100 + 9 × 200) / 10 000 ms = 19%.
    double last = 0;
    for (int i = 0; i < 9; i++) {
      nanos.addAndGet(Duration.ofSeconds(1).toNanos());
      gcMillis.addAndGet(200);
      last = pressure(monitor);
    }
    assertThat(last).isCloseTo(0.19, within(1e-9));

    // The window slides: the first second (100 ms of GC) drops out.
    nanos.addAndGet(Duration.ofSeconds(1).toNanos());
    gcMillis.addAndGet(200);
    assertThat(pressure(monitor)).isCloseTo(0.20, within(1e-9));
  }

  @Test
  void gcPressureFailsWhenTimeGoesBackwards() {
    AtomicLong gcMillis = new AtomicLong(1_000);
    AtomicLong nanos = new AtomicLong(5_000_000_000L);
    GcPressureMonitor monitor = new GcPressureMonitor(gcMillis::get, nanos::get, Duration.ofSeconds(10));

    gcMillis.set(900);
    nanos.addAndGet(1_000_000_000L);
    assertThat(failure(monitor)).hasMessage("GC time or the clock went backwards");
  }

  // --- cgroup memory -------------------------------------------------------------------------

  @Test
  void cgroupV2MemoryIsCurrentOverMax() throws Exception {
    write("memory.current", "268435456\n");
    write("memory.max", "1073741824\n");

    assertThat(pressure(new CgroupMemoryMonitor(dir, OptionalLong.empty()))).isEqualTo(0.25);
    // max_memory_bytes caps the limit: min(512 MiB, 1 GiB).
    assertThat(pressure(new CgroupMemoryMonitor(dir, OptionalLong.of(536870912)))).isEqualTo(0.5);
    assertThat(pressure(new CgroupMemoryMonitor(dir, OptionalLong.of(4294967296L)))).isEqualTo(0.25);
  }

  @Test
  void cgroupV2WithoutALimitHasNoPressureUnlessMaxMemoryIsConfigured() throws Exception {
    write("memory.current", "268435456\n");
    write("memory.max", "max\n");

    assertThat(pressure(new CgroupMemoryMonitor(dir, OptionalLong.empty()))).isZero();
    assertThat(pressure(new CgroupMemoryMonitor(dir, OptionalLong.of(536870912)))).isEqualTo(0.5);
  }

  @Test
  void cgroupV1MemoryIsUsageOverLimit() throws Exception {
    write("memory/memory.usage_in_bytes", "104857600\n");
    write("memory/memory.limit_in_bytes", "419430400\n");

    assertThat(pressure(new CgroupMemoryMonitor(dir, OptionalLong.empty()))).isEqualTo(0.25);
    assertThat(pressure(new CgroupMemoryMonitor(dir, OptionalLong.of(209715200)))).isEqualTo(0.5);
  }

  @Test
  void cgroupV1UnlimitedShowsAsAHugeNumberOrMinusOne() throws Exception {
    write("memory/memory.usage_in_bytes", "104857600\n");
    write("memory/memory.limit_in_bytes", "9223372036854771712\n");
    CgroupMemoryMonitor monitor = new CgroupMemoryMonitor(dir, OptionalLong.empty());
    assertThat(pressure(monitor)).isZero();
    assertThat(pressure(new CgroupMemoryMonitor(dir, OptionalLong.of(209715200)))).isEqualTo(0.5);

    write("memory/memory.limit_in_bytes", "-1\n");
    assertThat(pressure(monitor)).isZero();
  }

  @Test
  void cgroupMemoryFailsWithoutCgroupFilesOrWithGarbage() throws Exception {
    CgroupMemoryMonitor monitor = new CgroupMemoryMonitor(dir, OptionalLong.empty());
    assertThat(failure(monitor)).isInstanceOf(MonitorReadException.class)
        .hasMessageContaining("no cgroup v2 memory.current or v1 memory/memory.usage_in_bytes");

    write("memory.current", "lots\n");
    write("memory.max", "100\n");
    assertThat(failure(monitor)).isInstanceOf(MonitorReadException.class).hasMessageContaining("not an integer");

    write("memory.current", "10\n");
    write("memory.max", "0\n");
    assertThat(failure(monitor)).hasMessage("memory limit is 0");
  }

  // --- CPU -----------------------------------------------------------------------------------

  private static String procStat(long user, long nice, long system, long idle) {
    return "cpu  %d %d %d %d 50 0 7 0 0 0\ncpu0 1 2 3 4 5 6 7 8 9 10\nintr 12345\n"
        .formatted(user, nice, system, idle);
  }

  @Test
  void hostCpuIsTheWorkShareBetweenTwoProcStatSamplesSmoothedLikeEnvoy() throws Exception {
    write("stat", procStat(1000, 100, 400, 8500));
    HostCpuMonitor monitor = new HostCpuMonitor(dir);

    // work (user + nice + system) +800 of total (work + idle) +1000: 80%, weighted in at 5%.
    write("stat", procStat(1600, 100, 600, 8700));
    double first = pressure(monitor);
    assertThat(first).isCloseTo(0.8 * HostCpuMonitor.DAMPENING_ALPHA, within(1e-12));

    // work +500 of total +1000: 50%.
    write("stat", procStat(2000, 100, 700, 9200));
    assertThat(pressure(monitor)).isCloseTo(0.5 * HostCpuMonitor.DAMPENING_ALPHA
        + (1 - HostCpuMonitor.DAMPENING_ALPHA) * first, within(1e-12));
  }

  @Test
  void hostCpuFailsOnCountersThatDoNotMoveOrGoBackAndOnGarbage() throws Exception {
    write("stat", procStat(1000, 100, 400, 8500));
    HostCpuMonitor monitor = new HostCpuMonitor(dir);

    assertThat(failure(monitor)).isInstanceOf(MonitorReadException.class).hasMessageContaining("erroneous CPU times");
    write("stat", procStat(900, 100, 400, 8400));
    assertThat(failure(monitor)).isInstanceOf(MonitorReadException.class);
    write("stat", "intr 1 2 3\n");
    assertThat(failure(monitor)).isInstanceOf(MonitorReadException.class).hasMessageContaining("unexpected format");
    Files.delete(dir.resolve("stat"));
    assertThat(failure(monitor)).isInstanceOf(IOException.class);
    // The previous good sample is still the base.
    write("stat", procStat(1100, 100, 400, 8600));
    assertThat(pressure(monitor)).isCloseTo(0.5 * HostCpuMonitor.DAMPENING_ALPHA, within(1e-12));
  }

  @Test
  void hostCpuWithoutAFirstSampleTakesItOnTheFirstRefresh() throws Exception {
    HostCpuMonitor monitor = new HostCpuMonitor(dir);
    write("stat", procStat(1000, 100, 400, 8500));
    assertThat(failure(monitor)).hasMessageContaining("no earlier sample");
    write("stat", procStat(1100, 100, 400, 8600));
    assertThat(pressure(monitor)).isCloseTo(0.5 * HostCpuMonitor.DAMPENING_ALPHA, within(1e-12));
  }

  @Test
  void containerCpuV2IsUsageOverWallTimeTimesTheQuota() throws Exception {
    write("cpu.stat", "usage_usec 1000000\nuser_usec 600000\nsystem_usec 400000\n");
    write("cpu.max", "200000 100000\n");
    write("cpuset.cpus.effective", "0-3\n");
    AtomicLong nanos = new AtomicLong(0);
    ContainerCpuMonitor monitor = new ContainerCpuMonitor(dir, nanos::get, () -> 64);

    // One second later the cgroup used 1.5 s of CPU out of a 2-core quota: 75%.
    nanos.set(1_000_000_000L);
    write("cpu.stat", "usage_usec 2500000\n");
    assertThat(pressure(monitor)).isCloseTo(0.75 * HostCpuMonitor.DAMPENING_ALPHA, within(1e-12));
  }

  @Test
  void containerCpuV2WithoutAQuotaUsesTheEffectiveCpus() throws Exception {
    write("cpu.stat", "usage_usec 0\n");
    write("cpu.max", "max 100000\n");
    write("cpuset.cpus.effective", "0-1,4,6-6\n");
    AtomicLong nanos = new AtomicLong(0);
    ContainerCpuMonitor monitor = new ContainerCpuMonitor(dir, nanos::get, () -> 64);

    // 2 s of CPU in 1 s on 4 CPUs: 50%.
    nanos.set(1_000_000_000L);
    write("cpu.stat", "usage_usec 2000000\n");
    assertThat(pressure(monitor)).isCloseTo(0.5 * HostCpuMonitor.DAMPENING_ALPHA, within(1e-12));

    write("cpuset.cpus.effective", "3-1\n");
    nanos.set(2_000_000_000L);
    assertThat(failure(monitor)).isInstanceOf(MonitorReadException.class).hasMessageContaining("bad CPU range");
  }

  @Test
  void containerCpuV1IsCpuacctUsageOverTheCfsQuota() throws Exception {
    write("cpuacct/cpuacct.usage", "0\n");
    write("cpu/cpu.cfs_quota_us", "50000\n");
    write("cpu/cpu.cfs_period_us", "100000\n");
    AtomicLong nanos = new AtomicLong(0);
    ContainerCpuMonitor monitor = new ContainerCpuMonitor(dir, nanos::get, () -> 8);

    // 0.5 s of CPU in 2 s against half a core: 50%.
    nanos.set(2_000_000_000L);
    write("cpuacct/cpuacct.usage", "500000000\n");
    double first = pressure(monitor);
    assertThat(first).isCloseTo(0.5 * HostCpuMonitor.DAMPENING_ALPHA, within(1e-12));

    // No quota: all 8 processors. 2 s of CPU in 1 s: 25%.
    write("cpu/cpu.cfs_quota_us", "-1\n");
    nanos.set(3_000_000_000L);
    write("cpuacct/cpuacct.usage", "2500000000\n");
    assertThat(pressure(monitor)).isCloseTo(0.25 * HostCpuMonitor.DAMPENING_ALPHA
        + (1 - HostCpuMonitor.DAMPENING_ALPHA) * first, within(1e-12));
  }

  @Test
  void containerCpuFailsWithoutCgroupFiles() {
    ContainerCpuMonitor monitor = new ContainerCpuMonitor(dir, () -> 0L, () -> 1);
    assertThat(failure(monitor)).isInstanceOf(MonitorReadException.class)
        .hasMessageContaining("no cgroup v2 cpu.stat or v1 cpuacct/cpuacct.usage");
  }

  // --- injected resource ---------------------------------------------------------------------

  @Test
  void injectedResourceReadsTheNumberInItsFile() throws Exception {
    Path file = write("pressure", "0.75\n");
    InjectedResourceMonitor monitor = new InjectedResourceMonitor(file);

    assertThat(pressure(monitor)).isEqualTo(0.75);
    Files.writeString(file, "1.5");
    assertThat(failure(monitor)).hasMessageContaining("pressure out of range");
    Files.writeString(file, "high");
    assertThat(failure(monitor)).hasMessageContaining("failed to parse injected resource pressure");
    Files.delete(file);
    assertThat(failure(monitor)).isInstanceOf(IOException.class);
  }

  // --- the factory ---------------------------------------------------------------------------

  @Test
  void buildsEachMonitorTypeFromItsSettings() {
    StandardMonitors.Sources sources = new StandardMonitors.Sources(() -> 100, dir, dir, () -> 1, () -> 10,
        () -> 0, () -> 0, () -> 0, () -> 2);
    StandardMonitors factory = new StandardMonitors(sources);

    assertThat(factory.create(monitor(new OverloadConfig.FixedHeap(1000)))).isInstanceOf(FixedHeapMonitor.class);
    assertThat(factory.create(monitor(new OverloadConfig.CgroupMemory(OptionalLong.empty()))))
        .isInstanceOf(CgroupMemoryMonitor.class);
    assertThat(factory.create(monitor(new OverloadConfig.CpuUtilization(OverloadConfig.CpuMode.HOST))))
        .isInstanceOf(HostCpuMonitor.class);
    assertThat(factory.create(monitor(new OverloadConfig.CpuUtilization(OverloadConfig.CpuMode.CONTAINER))))
        .isInstanceOf(ContainerCpuMonitor.class);
    assertThat(factory.create(monitor(new OverloadConfig.InjectedResource("/x"))))
        .isInstanceOf(InjectedResourceMonitor.class);
    assertThat(factory.create(monitor(new OverloadConfig.BufferMemory(OptionalLong.empty()))))
        .isInstanceOf(BufferMemoryMonitor.class);
    assertThat(factory.create(monitor(new OverloadConfig.GcPressure(Duration.ofSeconds(10)))))
        .isInstanceOf(GcPressureMonitor.class);
    assertThat(factory.create(monitor(new OverloadConfig.EventLoopLag(Duration.ofMillis(50)))))
        .isInstanceOf(EventLoopLagMonitor.class);
    assertThatThrownBy(() -> factory.create(
        monitor(new OverloadConfig.GlobalDownstreamConnections(OptionalLong.of(1)))))
        .isInstanceOf(IllegalArgumentException.class);
    assertThat(pressure(factory.create(monitor(new OverloadConfig.FixedHeap(1000))))).isEqualTo(0.1);
  }

  @Test
  void theSystemSourcesReadThisJvm() {
    StandardMonitors.Sources sources = StandardMonitors.Sources.system(() -> 0, () -> 1, () -> 0);
    assertThat(sources.heapUsedBytes().getAsLong()).isPositive();
    assertThat(sources.accumulatedGcMillis().getAsLong()).isNotNegative();
    assertThat(sources.availableProcessors().getAsInt()).isPositive();
  }

  private static OverloadConfig.ResourceMonitor monitor(OverloadConfig.MonitorSettings settings) {
    return new OverloadConfig.ResourceMonitor(settings.typeName(), settings);
  }
}
