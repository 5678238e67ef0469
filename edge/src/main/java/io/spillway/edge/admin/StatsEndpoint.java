package io.spillway.edge.admin;

import io.spillway.edge.stats.JsonStatsFormat;
import io.spillway.edge.stats.StatFilter;
import io.spillway.edge.stats.StatsStore;
import io.spillway.edge.stats.TextStatsFormat;
import java.util.regex.PatternSyntaxException;

/**
 * {@code /stats}: every stat in Envoy's text form, or {@code ?format=json}, or
 * {@code ?format=prometheus} (the same as {@code /stats/prometheus}). {@code ?filter=<regex>} keeps
 * the stats whose name the regex finds a match in; {@code ?usedonly} keeps those written at least
 * once. An invalid regex or an unknown format is a 400.
 */
final class StatsEndpoint implements AdminEndpoint {
  private final StatsStore stats;
  private final PrometheusStatsEndpoint prometheus;
  private final Runnable beforeRead;

  /** @param beforeRead runs before each text or JSON rendering ({@link AdminContext#statsRead()}) */
  StatsEndpoint(StatsStore stats, PrometheusStatsEndpoint prometheus, Runnable beforeRead) {
    this.stats = stats;
    this.prometheus = prometheus;
    this.beforeRead = beforeRead;
  }

  @Override
  public String help() {
    return "print server stats; ?format=text|json|prometheus, ?filter=<regex>, ?usedonly";
  }

  @Override
  public boolean mutating() {
    return false;
  }

  @Override
  public AdminResponse handle(AdminRequest request) {
    String format = request.param("format");
    if (format == null || format.isEmpty()) {
      format = "text";
    }
    if (!format.equals("text") && !format.equals("json") && !format.equals("prometheus")) {
      return AdminResponse.badRequest("invalid format '" + format + "': use text, json or prometheus");
    }
    if (format.equals("prometheus")) {
      return prometheus.handle(request);
    }
    StatFilter filter;
    try {
      filter = filter(request);
    } catch (PatternSyntaxException e) {
      return invalidFilter(e);
    }
    beforeRead.run();
    return format.equals("json")
        ? AdminResponse.json(200, JsonStatsFormat.render(stats, filter))
        : AdminResponse.text(200, TextStatsFormat.render(stats, filter));
  }

  /**
   * The {@code filter} and {@code usedonly} parameters.
   *
   * @throws PatternSyntaxException if the filter is not a valid regex
   */
  static StatFilter filter(AdminRequest request) {
    return StatFilter.of(request.param("filter"), request.has("usedonly"));
  }

  static AdminResponse invalidFilter(PatternSyntaxException e) {
    return AdminResponse.badRequest("invalid regex in filter=" + e.getPattern() + ": " + e.getDescription()
        + " near index " + e.getIndex());
  }
}
