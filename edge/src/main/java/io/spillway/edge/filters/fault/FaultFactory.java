package io.spillway.edge.filters.fault;

import io.spillway.edge.config.FaultConfig;
import io.spillway.edge.http.filter.FilterChainBuilder;
import io.spillway.edge.http.filter.HttpFilterFactory;
import io.spillway.edge.router.RouteEntry;
import io.spillway.edge.runtime.RuntimeSnapshot;
import io.spillway.edge.stats.Counter;
import io.spillway.edge.stats.Gauge;
import io.spillway.edge.stats.Scope;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Supplier;

/**
 * The fault filter of one connection manager ({@code envoy.filters.http.fault}): its
 * configuration, Envoy's stats under {@code http.<stat_prefix>.fault.} and the count of requests
 * in a fault, shared by every worker (one atomic, compared with {@code max_active_faults}).
 */
public final class FaultFactory implements HttpFilterFactory {
  private final String name;
  private final FaultConfig config;
  private final Supplier<RuntimeSnapshot> runtime;
  private final AtomicInteger active = new AtomicInteger();
  final Counter delaysInjected;
  final Counter abortsInjected;
  final Counter faultsOverflow;
  private final Gauge activeFaults;

  /**
   * @param name the chain entry's name, which routes' {@code typed_per_filter_config} refer to
   * @param config the filter's configuration
   * @param httpScope the connection manager's {@code http.<stat_prefix>.} scope
   * @param runtime the runtime, whose keys may override percentages, durations, statuses and the limit
   */
  public FaultFactory(String name, FaultConfig config, Scope httpScope, Supplier<RuntimeSnapshot> runtime) {
    this.name = name;
    this.config = config;
    this.runtime = runtime;
    Scope fault = httpScope.scope("fault");
    this.delaysInjected = fault.counter("delays_injected");
    this.abortsInjected = fault.counter("aborts_injected");
    this.faultsOverflow = fault.counter("faults_overflow");
    this.activeFaults = fault.gauge("active_faults");
  }

  @Override
  public String name() {
    return name;
  }

  @Override
  public void createFilters(FilterChainBuilder chain) {
    chain.addDecoderFilter(new FaultFilter(this));
  }

  /** The configuration for a request: its route's or virtual host's own, else the filter's. */
  FaultConfig configFor(RouteEntry route) {
    if (route != null && route.filterConfig(name) instanceof FaultConfig own) {
      return own;
    }
    return config;
  }

  RuntimeSnapshot runtime() {
    return runtime.get();
  }

  /** Takes one of the {@code max_active_faults} places; false (and counted) when none is free. */
  boolean enterFault(long maxActive) {
    for (;;) {
      int now = active.get();
      if (now >= maxActive) {
        faultsOverflow.inc();
        return false;
      }
      if (active.compareAndSet(now, now + 1)) {
        activeFaults.inc();
        return true;
      }
    }
  }

  void leaveFault() {
    active.decrementAndGet();
    activeFaults.dec();
  }
}
