package io.spillway.edge.admin;

import io.spillway.edge.stats.PrometheusStatsFormat;
import io.spillway.edge.stats.StatFilter;
import io.spillway.edge.stats.StatsStore;
import java.nio.charset.StandardCharsets;
import java.util.regex.PatternSyntaxException;

/**
 * {@code /stats/prometheus}: the Prometheus text exposition, with the same {@code ?filter=} and
 * {@code ?usedonly} as {@code /stats}.
 */
final class PrometheusStatsEndpoint implements AdminEndpoint {
  private final StatsStore stats;
  private final Runnable beforeRead;

  /** @param beforeRead runs before each rendering ({@link AdminContext#statsRead()}) */
  PrometheusStatsEndpoint(StatsStore stats, Runnable beforeRead) {
    this.stats = stats;
    this.beforeRead = beforeRead;
  }

  @Override
  public String help() {
    return "print server stats in prometheus format; ?filter=<regex>, ?usedonly";
  }

  @Override
  public boolean mutating() {
    return false;
  }

  @Override
  public AdminResponse handle(AdminRequest request) {
    StatFilter filter;
    try {
      filter = StatsEndpoint.filter(request);
    } catch (PatternSyntaxException e) {
      return StatsEndpoint.invalidFilter(e);
    }
    beforeRead.run();
    return new AdminResponse(200, PrometheusStatsFormat.CONTENT_TYPE,
        PrometheusStatsFormat.render(stats, filter).getBytes(StandardCharsets.UTF_8));
  }
}
