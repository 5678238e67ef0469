package io.spillway.edge.admin;

import io.spillway.edge.stats.StatsStore;

/** {@code /reset_counters} (POST): counters back to zero, histograms emptied; gauges untouched. */
final class ResetCountersEndpoint implements AdminEndpoint {
  private final StatsStore stats;

  ResetCountersEndpoint(StatsStore stats) {
    this.stats = stats;
  }

  @Override
  public String help() {
    return "reset all counters to zero";
  }

  @Override
  public boolean mutating() {
    return true;
  }

  @Override
  public AdminResponse handle(AdminRequest request) {
    stats.resetCounters();
    return AdminResponse.ok();
  }
}
