package io.spillway.edge.overload.monitor;

import java.util.function.LongSupplier;

/**
 * {@code envoy.resource_monitors.fixed_heap} for the JVM: heap in use / {@code max_heap_size_bytes}.
 * The heap in use comes from an injected supplier (in production
 * {@code MemoryMXBean.getHeapMemoryUsage().getUsed()}).
 */
public final class FixedHeapMonitor extends PolledMonitor {

  private final long maxHeapSizeBytes;
  private final LongSupplier heapUsedBytes;

  public FixedHeapMonitor(long maxHeapSizeBytes, LongSupplier heapUsedBytes) {
    if (maxHeapSizeBytes <= 0) {
      throw new IllegalArgumentException("max_heap_size_bytes must be greater than 0: " + maxHeapSizeBytes);
    }
    this.maxHeapSizeBytes = maxHeapSizeBytes;
    this.heapUsedBytes = heapUsedBytes;
  }

  @Override
  protected double readPressure() throws MonitorReadException {
    long used = heapUsedBytes.getAsLong();
    if (used < 0) {
      throw new MonitorReadException("heap usage is unavailable");
    }
    return (double) used / maxHeapSizeBytes;
  }
}
