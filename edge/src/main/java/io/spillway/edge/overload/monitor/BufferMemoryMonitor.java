package io.spillway.edge.overload.monitor;

import java.util.OptionalLong;
import java.util.function.LongSupplier;

/**
 * (ours) {@code spillway.resource_monitors.buffer_memory}: direct and pooled buffer memory in use /
 * its limit. The limit is {@code max_buffer_memory_bytes} when configured, else what the injected
 * limit supplier reports (in production Netty's {@code PlatformDependent.maxDirectMemory()}); usage
 * comes from an injected supplier (Netty's {@code usedDirectMemory()} or the pooled allocator's
 * metric). A negative usage (not tracked) or a limit of 0 is a failed update.
 */
public final class BufferMemoryMonitor extends PolledMonitor {

  private final LongSupplier usedBytes;
  private final LongSupplier limitBytes;
  private final long configuredMax;

  public BufferMemoryMonitor(LongSupplier usedBytes, LongSupplier limitBytes, OptionalLong maxBufferMemoryBytes) {
    this.usedBytes = usedBytes;
    this.limitBytes = limitBytes;
    this.configuredMax = maxBufferMemoryBytes.orElse(0);
  }

  @Override
  protected double readPressure() throws MonitorReadException {
    long used = usedBytes.getAsLong();
    if (used < 0) {
      throw new MonitorReadException("buffer memory usage is not tracked");
    }
    long limit = configuredMax > 0 ? configuredMax : limitBytes.getAsLong();
    if (limit <= 0) {
      throw new MonitorReadException("buffer memory limit is unknown");
    }
    return (double) used / limit;
  }
}
