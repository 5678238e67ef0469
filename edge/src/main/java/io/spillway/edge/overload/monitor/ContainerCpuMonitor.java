package io.spillway.edge.overload.monitor;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.function.IntSupplier;
import java.util.function.LongSupplier;

/**
 * {@code envoy.resource_monitors.cpu_utilization} in {@code CONTAINER} mode: the CPU time this
 * cgroup used between two samples, over the wall time between them times the cores it may use.
 * The pressure is the same moving average as {@link HostCpuMonitor}'s.
 *
 * <p>cgroup v2 (when {@code cpu.stat} is under the root): {@code usage_usec} of {@code cpu.stat};
 * cores = min(the CPUs of {@code cpuset.cpus.effective}, or the available processors when that file
 * is missing; quota / period of {@code cpu.max}, unless that is {@code max}). cgroup v1:
 * {@code cpuacct/cpuacct.usage} (ns) against {@code cpu/cpu.cfs_quota_us} / {@code cpu.cfs_period_us}
 * (-1: the available processors). Wall time comes from the injected clock.
 */
public final class ContainerCpuMonitor extends PolledMonitor {

  record Sample(double usageSeconds, long wallNanos, double cores) {}

  private final Path root;
  private final LongSupplier nanoClock;
  private final IntSupplier availableProcessors;
  private Sample previous;
  private double utilization;

  /**
   * @param root this process's cgroup root ({@code /sys/fs/cgroup} in a container)
   * @param nanoClock monotonic time in nanoseconds
   * @param availableProcessors the CPUs of the host ({@code Runtime::availableProcessors})
   */
  public ContainerCpuMonitor(Path root, LongSupplier nanoClock, IntSupplier availableProcessors) {
    this.root = root;
    this.nanoClock = nanoClock;
    this.availableProcessors = availableProcessors;
    try {
      previous = sample();
    } catch (IOException | MonitorReadException e) {
      previous = null;
    }
  }

  @Override
  protected double readPressure() throws IOException, MonitorReadException {
    Sample current = sample();
    if (previous == null) {
      previous = current;
      throw new MonitorReadException("no earlier sample of the cgroup CPU usage yet");
    }
    double latest = utilization(previous, current);
    previous = current;
    utilization = latest * HostCpuMonitor.DAMPENING_ALPHA + (1 - HostCpuMonitor.DAMPENING_ALPHA) * utilization;
    return utilization;
  }

  /** Δusage / (Δwall × cores), within [0, 1]. */
  static double utilization(Sample before, Sample after) throws MonitorReadException {
    double usage = after.usageSeconds() - before.usageSeconds();
    long wall = after.wallNanos() - before.wallNanos();
    if (usage < 0 || wall <= 0) {
      throw new MonitorReadException("erroneous CPU times: usage over period " + usage
          + " s must not be negative and wall time " + wall + " ns must be positive");
    }
    double u = usage / (wall / 1e9 * after.cores());
    return Math.min(1.0, Math.max(0.0, u));
  }

  Sample sample() throws IOException, MonitorReadException {
    long now = nanoClock.getAsLong();
    Path stat = root.resolve("cpu.stat");
    if (Files.exists(stat)) {
      return new Sample(usageMicros(stat) / 1e6, now, v2Cores());
    }
    Path usage = root.resolve("cpuacct").resolve("cpuacct.usage");
    if (!Files.exists(usage)) {
      throw new MonitorReadException("no cgroup v2 cpu.stat or v1 cpuacct/cpuacct.usage under " + root);
    }
    return new Sample(CgroupFiles.readLong(usage) / 1e9, now, v1Cores());
  }

  private static long usageMicros(Path stat) throws IOException, MonitorReadException {
    for (String line : CgroupFiles.read(stat).split("\n")) {
      String[] kv = line.trim().split("\\s+");
      if (kv.length == 2 && kv[0].equals("usage_usec")) {
        return CgroupFiles.parseLong(kv[1], stat);
      }
    }
    throw new MonitorReadException(stat + ": no usage_usec");
  }

  private double v2Cores() throws IOException, MonitorReadException {
    Path effective = root.resolve("cpuset.cpus.effective");
    double cpus = Files.exists(effective) ? countCpus(CgroupFiles.read(effective), effective)
        : availableProcessors.getAsInt();
    Path maxFile = root.resolve("cpu.max");
    if (!Files.exists(maxFile)) {
      return cpus;
    }
    String[] parts = CgroupFiles.read(maxFile).split("\\s+");
    if (parts.length != 2) {
      throw new MonitorReadException(maxFile + ": expected \"<quota> <period>\"");
    }
    if (parts[0].equals("max")) {
      return cpus;
    }
    long quota = CgroupFiles.parseLong(parts[0], maxFile);
    long period = CgroupFiles.parseLong(parts[1], maxFile);
    if (period == 0 || quota == 0) {
      throw new MonitorReadException(maxFile + ": quota and period must be positive");
    }
    return Math.min(cpus, (double) quota / period);
  }

  private double v1Cores() throws IOException, MonitorReadException {
    double cpus = availableProcessors.getAsInt();
    Path cpu = root.resolve("cpu");
    Path quotaFile = cpu.resolve("cpu.cfs_quota_us");
    if (!Files.exists(quotaFile)) {
      return cpus;
    }
    String quota = CgroupFiles.read(quotaFile);
    if (quota.equals("-1")) {
      return cpus;
    }
    long q = CgroupFiles.parseLong(quota, quotaFile);
    long period = CgroupFiles.readLong(cpu.resolve("cpu.cfs_period_us"));
    if (q == 0 || period == 0) {
      throw new MonitorReadException(quotaFile + ": quota and period must be positive");
    }
    return Math.min(cpus, (double) q / period);
  }

  /** The CPUs of a cpuset list such as {@code 0-3,6,8-9}. */
  static int countCpus(String list, Path file) throws MonitorReadException {
    int count = 0;
    for (String token : list.trim().split(",")) {
      if (token.isEmpty()) {
        continue;
      }
      int dash = token.indexOf('-');
      if (dash < 0) {
        CgroupFiles.parseLong(token, file);
        count++;
      } else {
        long start = CgroupFiles.parseLong(token.substring(0, dash), file);
        long end = CgroupFiles.parseLong(token.substring(dash + 1), file);
        if (end < start) {
          throw new MonitorReadException(file + ": bad CPU range " + token);
        }
        count += (int) (end - start + 1);
      }
    }
    if (count == 0) {
      throw new MonitorReadException(file + ": no CPUs");
    }
    return count;
  }
}
