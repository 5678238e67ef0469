package io.spillway.edge.overload.monitor;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;

/**
 * {@code envoy.resource_monitors.cpu_utilization} in {@code HOST} mode: the host's CPU utilization
 * from two samples of the aggregate {@code cpu} line of {@code /proc/stat}, as Envoy computes it:
 * work = user + nice + system, total = work + idle, utilization = Δwork / Δtotal. The pressure is
 * Envoy's exponentially weighted moving average of the utilizations, with weight
 * {@value #DAMPENING_ALPHA} for each new one, which damps short spikes.
 *
 * <p>The first sample is taken at construction; a refresh whose read fails, or whose counters went
 * backwards or did not move, fails and keeps the previous sample.
 */
public final class HostCpuMonitor extends PolledMonitor {

  /** Envoy's weight of each new utilization in the moving average. */
  public static final double DAMPENING_ALPHA = 0.05;

  /** Cumulative CPU time, in clock ticks, from one read of {@code /proc/stat}. */
  record CpuTimes(long work, long total) {}

  private final Path procStat;
  private CpuTimes previous;
  private double utilization;

  /** @param procRoot the proc file system root ({@code /proc} in production) */
  public HostCpuMonitor(Path procRoot) {
    this.procStat = procRoot.resolve("stat");
    try {
      previous = read(procStat);
    } catch (IOException | MonitorReadException e) {
      previous = null; // the first refresh takes the first sample
    }
  }

  @Override
  protected double readPressure() throws IOException, MonitorReadException {
    CpuTimes current = read(procStat);
    if (previous == null) {
      previous = current;
      throw new MonitorReadException("no earlier sample of " + procStat + " yet");
    }
    double latest = utilization(previous, current);
    previous = current;
    utilization = latest * DAMPENING_ALPHA + (1 - DAMPENING_ALPHA) * utilization;
    return utilization;
  }

  static CpuTimes read(Path procStat) throws IOException, MonitorReadException {
    return parse(Files.readString(procStat, StandardCharsets.US_ASCII), procStat);
  }

  /** The aggregate {@code cpu  user nice system idle ...} line. */
  static CpuTimes parse(String content, Path file) throws MonitorReadException {
    String firstLine = content.lines().findFirst().orElse("");
    String[] fields = firstLine.trim().split("\\s+");
    if (fields.length < 5 || !fields[0].equals("cpu")) {
      throw new MonitorReadException(file + ": unexpected format (no aggregate cpu line first)");
    }
    long[] times = new long[4];
    for (int i = 0; i < 4; i++) {
      times[i] = CgroupFiles.parseLong(fields[i + 1], file);
    }
    long work = times[0] + times[1] + times[2];
    return new CpuTimes(work, work + times[3]);
  }

  /** Δwork / Δtotal between two samples. */
  static double utilization(CpuTimes before, CpuTimes after) throws MonitorReadException {
    long work = after.work() - before.work();
    long total = after.total() - before.total();
    if (work < 0 || total <= 0) {
      throw new MonitorReadException("erroneous CPU times: work over period " + work
          + " must not be negative and total over period " + total + " must be positive");
    }
    return (double) work / total;
  }
}
