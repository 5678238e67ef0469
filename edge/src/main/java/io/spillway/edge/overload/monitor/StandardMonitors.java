package io.spillway.edge.overload.monitor;

import io.spillway.edge.config.OverloadConfig;
import io.spillway.edge.overload.ResourceMonitor;
import io.spillway.edge.overload.ResourceMonitorFactory;
import java.lang.management.ManagementFactory;
import java.lang.management.MemoryMXBean;
import java.nio.file.Path;
import java.util.Objects;
import java.util.function.IntSupplier;
import java.util.function.LongSupplier;

/**
 * Builds every polled monitor Spillway ships from its configuration, reading through the
 * {@link Sources} it is given: production passes {@link Sources#system}, tests pass fakes and temp
 * directories.
 */
public final class StandardMonitors implements ResourceMonitorFactory {

  /**
   * Where the monitors read.
   *
   * @param heapUsedBytes heap in use (fixed_heap)
   * @param procRoot the proc file system ({@code /proc}; cpu_utilization HOST)
   * @param cgroupRoot this process's cgroup root ({@code /sys/fs/cgroup}; cgroup_memory, cpu CONTAINER)
   * @param bufferMemoryUsedBytes direct/pooled buffer memory in use, negative when untracked (buffer_memory)
   * @param bufferMemoryLimitBytes its limit, used when max_buffer_memory_bytes is not configured
   * @param accumulatedGcMillis total GC time so far (gc_pressure)
   * @param worstEventLoopLagNanos the worst worker loop lag since the last read (event_loop_lag)
   * @param nanoClock monotonic time
   * @param availableProcessors the CPUs of the host
   */
  public record Sources(
      LongSupplier heapUsedBytes,
      Path procRoot,
      Path cgroupRoot,
      LongSupplier bufferMemoryUsedBytes,
      LongSupplier bufferMemoryLimitBytes,
      LongSupplier accumulatedGcMillis,
      LongSupplier worstEventLoopLagNanos,
      LongSupplier nanoClock,
      IntSupplier availableProcessors) {

    public Sources {
      Objects.requireNonNull(heapUsedBytes, "heapUsedBytes");
      Objects.requireNonNull(procRoot, "procRoot");
      Objects.requireNonNull(cgroupRoot, "cgroupRoot");
      Objects.requireNonNull(bufferMemoryUsedBytes, "bufferMemoryUsedBytes");
      Objects.requireNonNull(bufferMemoryLimitBytes, "bufferMemoryLimitBytes");
      Objects.requireNonNull(accumulatedGcMillis, "accumulatedGcMillis");
      Objects.requireNonNull(worstEventLoopLagNanos, "worstEventLoopLagNanos");
      Objects.requireNonNull(nanoClock, "nanoClock");
      Objects.requireNonNull(availableProcessors, "availableProcessors");
    }

    /**
     * The running JVM and host: the platform MXBeans, {@code /proc}, {@code /sys/fs/cgroup},
     * {@code System.nanoTime} and the buffer memory and loop lag sources the server wires in.
     */
    public static Sources system(LongSupplier bufferMemoryUsedBytes, LongSupplier bufferMemoryLimitBytes,
        LongSupplier worstEventLoopLagNanos) {
      MemoryMXBean memory = ManagementFactory.getMemoryMXBean();
      var collectors = ManagementFactory.getGarbageCollectorMXBeans();
      Runtime runtime = Runtime.getRuntime();
      return new Sources(() -> memory.getHeapMemoryUsage().getUsed(), Path.of("/proc"), Path.of("/sys/fs/cgroup"),
          bufferMemoryUsedBytes, bufferMemoryLimitBytes, () -> GcPressureMonitor.accumulatedMillis(collectors),
          worstEventLoopLagNanos, System::nanoTime, runtime::availableProcessors);
    }
  }

  private final Sources sources;

  public StandardMonitors(Sources sources) {
    this.sources = Objects.requireNonNull(sources, "sources");
  }

  @Override
  public ResourceMonitor create(OverloadConfig.ResourceMonitor config) {
    return switch (config.settings()) {
      case OverloadConfig.FixedHeap heap -> new FixedHeapMonitor(heap.maxHeapSizeBytes(), sources.heapUsedBytes());
      case OverloadConfig.CgroupMemory cgroup -> new CgroupMemoryMonitor(sources.cgroupRoot(), cgroup.maxMemoryBytes());
      case OverloadConfig.CpuUtilization cpu -> switch (cpu.mode()) {
        case HOST -> new HostCpuMonitor(sources.procRoot());
        case CONTAINER -> new ContainerCpuMonitor(sources.cgroupRoot(), sources.nanoClock(),
            sources.availableProcessors());
      };
      case OverloadConfig.InjectedResource injected -> new InjectedResourceMonitor(Path.of(injected.filename()));
      case OverloadConfig.BufferMemory buffer -> new BufferMemoryMonitor(sources.bufferMemoryUsedBytes(),
          sources.bufferMemoryLimitBytes(), buffer.maxBufferMemoryBytes());
      case OverloadConfig.GcPressure gc -> new GcPressureMonitor(sources.accumulatedGcMillis(), sources.nanoClock(),
          gc.window());
      case OverloadConfig.EventLoopLag lag -> new EventLoopLagMonitor(sources.worstEventLoopLagNanos(), lag.target());
      case OverloadConfig.GlobalDownstreamConnections c -> throw new IllegalArgumentException(
          config.name() + " is a proactive resource owned by the overload manager, not a polled monitor");
    };
  }
}
