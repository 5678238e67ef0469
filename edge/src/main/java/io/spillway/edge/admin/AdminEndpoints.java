package io.spillway.edge.admin;

import ch.qos.logback.classic.LoggerContext;
import io.netty.buffer.PooledByteBufAllocator;
import io.spillway.edge.config.ExtensionRegistry;
import java.nio.file.Path;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.Map;
import org.slf4j.ILoggerFactory;
import org.slf4j.LoggerFactory;

/** The table of admin paths, in the order {@code /help} lists them. */
final class AdminEndpoints {
  private AdminEndpoints() {}

  static Map<String, AdminEndpoint> all(AdminContext context) {
    Map<String, AdminEndpoint> m = new LinkedHashMap<>();
    Map<String, AdminEndpoint> table = Collections.unmodifiableMap(m);
    HelpEndpoint help = new HelpEndpoint(table);
    m.put("/", help);
    m.put("/help", help);
    m.put("/ready", new ReadyEndpoint(context));
    m.put("/server_info", new ServerInfoEndpoint(context, ServerInfoEndpoint.implementationVersion()));
    m.put("/hot_restart_version", new HotRestartVersionEndpoint(context::hotRestartVersion));
    PrometheusStatsEndpoint prometheus = new PrometheusStatsEndpoint(context.stats(), context::statsRead);
    m.put("/stats", new StatsEndpoint(context.stats(), prometheus, context::statsRead));
    m.put("/stats/prometheus", prometheus);
    m.put("/reset_counters", new ResetCountersEndpoint(context.stats()));
    m.put("/clusters", new ClustersEndpoint(context::clusters));
    m.put("/listeners", new ListenersEndpoint(context::listeners));
    m.put("/config_dump", new ConfigDumpEndpoint(context, ExtensionRegistry.standard()));
    // The allocator every edge channel uses (EdgeServer passes PooledByteBufAllocator.DEFAULT).
    m.put("/memory", new MemoryEndpoint(PooledByteBufAllocator.DEFAULT.metric()));
    ILoggerFactory loggers = LoggerFactory.getILoggerFactory();
    if (loggers instanceof LoggerContext logback) {
      m.put("/logging", new LoggingEndpoint(logback));
    }
    m.put("/healthcheck/fail", new HealthCheckEndpoint(context, true));
    m.put("/healthcheck/ok", new HealthCheckEndpoint(context, false));
    m.put("/drain_listeners", new DrainListenersEndpoint(context));
    m.put("/quitquitquit", new QuitEndpoint(context));
    m.put("/reopen_logs", new ReopenLogsEndpoint(context));
    m.put("/runtime", new RuntimeEndpoint(() -> context.runtime().snapshot()));
    m.put("/runtime_modify", new RuntimeModifyEndpoint(context.runtime()));
    m.put("/overload", new OverloadEndpoint(context));
    m.put("/ratelimits", new RateLimitsEndpoint(context));
    m.put("/xds", new XdsEndpoint(context));
    Path profiles = Path.of(System.getProperty("java.io.tmpdir"));
    m.put("/cpuprofile", new ProfileEndpoint(ProfileEndpoint.Kind.CPU, profiles, context.clock()));
    m.put("/memoryprofile", new ProfileEndpoint(ProfileEndpoint.Kind.MEMORY, profiles, context.clock()));
    return table;
  }
}
