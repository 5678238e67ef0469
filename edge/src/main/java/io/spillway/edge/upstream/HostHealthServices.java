package io.spillway.edge.upstream;

import java.util.concurrent.Executor;
import java.util.function.LongSupplier;

/**
 * What clusters need to judge their hosts' health: the control thread (outlier decisions and
 * routing publications), a monotonic clock for ejection times, and the loop active health checks
 * run on (null when the edge has none, which a cluster with {@code health_checks} refuses).
 */
public record HostHealthServices(Executor control, LongSupplier nanoClock, HealthCheckLoop healthCheckLoop) {
  static final HostHealthServices NONE = new HostHealthServices(Runnable::run, System::nanoTime, null);
}
