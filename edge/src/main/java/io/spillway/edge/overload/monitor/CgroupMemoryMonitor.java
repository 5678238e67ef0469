package io.spillway.edge.overload.monitor;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.OptionalLong;

/**
 * {@code envoy.resource_monitors.cgroup_memory}: the cgroup's memory usage / its limit, the limit
 * being min({@code max_memory_bytes}, the cgroup's limit) when {@code max_memory_bytes} is set. No
 * limit at all (v2 {@code max}, v1 -1 or its page-aligned maximum) gives pressure 0.
 *
 * <p>Reads under a cgroup root given at construction ({@code /sys/fs/cgroup} in a container): cgroup
 * v2 when {@code memory.current} is there ({@code memory.current} / {@code memory.max}), otherwise v1
 * ({@code memory/memory.usage_in_bytes} / {@code memory/memory.limit_in_bytes}).
 */
public final class CgroupMemoryMonitor extends PolledMonitor {

  private final Path root;
  private final long maxMemoryBytes;

  /**
   * @param root the cgroup file system root of this process's cgroup
   * @param maxMemoryBytes the configured cap on the limit, if any
   */
  public CgroupMemoryMonitor(Path root, OptionalLong maxMemoryBytes) {
    this.root = root;
    this.maxMemoryBytes = maxMemoryBytes.orElse(Long.MAX_VALUE);
    if (this.maxMemoryBytes <= 0) {
      throw new IllegalArgumentException("max_memory_bytes must be greater than 0");
    }
  }

  @Override
  protected double readPressure() throws IOException, MonitorReadException {
    long usage;
    long cgroupLimit;
    Path v2Usage = root.resolve("memory.current");
    if (Files.exists(v2Usage)) {
      usage = CgroupFiles.readLong(v2Usage);
      Path maxFile = root.resolve("memory.max");
      String max = CgroupFiles.read(maxFile);
      cgroupLimit = max.equals("max") ? Long.MAX_VALUE : CgroupFiles.parseLong(max, maxFile);
    } else {
      Path v1 = root.resolve("memory");
      Path v1Usage = v1.resolve("memory.usage_in_bytes");
      if (!Files.exists(v1Usage)) {
        throw new MonitorReadException("no cgroup v2 memory.current or v1 memory/memory.usage_in_bytes under " + root);
      }
      usage = CgroupFiles.readLong(v1Usage);
      Path limitFile = v1.resolve("memory.limit_in_bytes");
      String limit = CgroupFiles.read(limitFile);
      if (limit.equals("-1")) {
        cgroupLimit = Long.MAX_VALUE;
      } else {
        long parsed = CgroupFiles.parseLong(limit, limitFile);
        cgroupLimit = parsed >= CgroupFiles.V1_UNLIMITED_THRESHOLD ? Long.MAX_VALUE : parsed;
      }
    }
    long limit = Math.min(maxMemoryBytes, cgroupLimit);
    if (limit == Long.MAX_VALUE) {
      return 0.0;
    }
    if (limit == 0) {
      throw new MonitorReadException("memory limit is 0");
    }
    return (double) usage / limit;
  }
}
