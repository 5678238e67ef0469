package io.spillway.edge.filters.lua;

import io.spillway.edge.config.LuaConfig;
import io.spillway.edge.http.filter.FilterChainBuilder;
import io.spillway.edge.http.filter.HttpFilterFactory;
import io.spillway.edge.router.RouteEntry;
import io.spillway.edge.stats.Counter;
import io.spillway.edge.stats.Scope;
import io.spillway.edge.upstream.Worker;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.LongSupplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The Lua filter of one connection manager ({@code envoy.filters.http.lua}): its scripts (each
 * with a copy per worker), Envoy's stats under {@code http.<stat_prefix>.lua.} (or
 * {@code lua.<filter stat_prefix>.} below it) — {@code errors} and {@code executions} — and the
 * log of script errors, at most one line a second per filter (the rest counted in that line).
 */
public final class LuaFilterFactory implements HttpFilterFactory {
  private static final Logger log = LoggerFactory.getLogger(LuaFilterFactory.class);
  private static final long LOG_INTERVAL_NANOS = TimeUnit.SECONDS.toNanos(1);

  private final String name;
  private final boolean clearRouteCache;
  private final LuaScriptSlots defaultScript;
  private final Map<String, LuaScriptSlots> named;
  final Counter errors;
  final Counter executions;
  final Counter tooLarge;
  private final LongSupplier nanoClock;
  private final AtomicLong nextLog;
  private final AtomicLong unlogged = new AtomicLong();

  /**
   * @param name the chain entry's name: what routes' {@code typed_per_filter_config} and metadata use
   * @param httpScope the connection manager's {@code http.<stat_prefix>.} scope
   * @param workers the edge's worker count (one copy of each script per worker)
   * @param nanoClock a monotonic clock, for the error log's rate
   */
  public LuaFilterFactory(String name, LuaConfig config, Scope httpScope, int workers, LongSupplier nanoClock) {
    this.name = name;
    this.clearRouteCache = config.clearRouteCache();
    this.defaultScript = config.defaultScript().map(s -> new LuaScriptSlots(s, workers)).orElse(null);
    Map<String, LuaScriptSlots> scripts = new TreeMap<>();
    config.sourceCodes().forEach((k, s) -> scripts.put(k, new LuaScriptSlots(s, workers)));
    this.named = Map.copyOf(scripts);
    Scope lua = httpScope.scope("lua");
    if (!config.statPrefix().isEmpty()) {
      lua = lua.scope(config.statPrefix());
    }
    this.errors = lua.counter("errors");
    this.executions = lua.counter("executions");
    this.tooLarge = httpScope.counter("downstream_rq_too_large");
    this.nanoClock = nanoClock;
    this.nextLog = new AtomicLong(nanoClock.getAsLong());
  }

  /** What a route's {@code LuaPerRoute} becomes when its table is built: a name, or its own script's copies. */
  public static Object routeConfig(LuaConfig.PerRoute perRoute, int workers) {
    return new RouteScript(perRoute.name().orElse(null),
        perRoute.sourceCode().map(s -> new LuaScriptSlots(s, workers)).orElse(null));
  }

  /** A route's choice: one of the filter's {@code source_codes} by name, or a script of its own. */
  record RouteScript(String name, LuaScriptSlots own) {}

  @Override
  public String name() {
    return name;
  }

  @Override
  public void createFilters(FilterChainBuilder chain) {
    chain.addStreamFilter(new LuaFilter(this));
  }

  boolean clearRouteCache() {
    return clearRouteCache;
  }

  /**
   * The script for a request on its route, as this worker runs it: the route's own, the named one
   * it picks (none when the filter has no script of that name, as in Envoy), else the default;
   * null when there is none.
   */
  WorkerScript scriptFor(RouteEntry route, Worker worker) {
    LuaScriptSlots slots = defaultScript;
    if (route != null && route.filterConfig(name) instanceof RouteScript r) {
      slots = r.own() != null ? r.own() : named.get(r.name());
    }
    return slots == null ? null : slots.forWorker(worker, this::scriptError);
  }

  /** A script failed: counted always, logged at most once a second with how many went unlogged. */
  void scriptError(String message) {
    errors.inc();
    long now = nanoClock.getAsLong();
    long next = nextLog.get();
    if (now - next >= 0 && nextLog.compareAndSet(next, now + LOG_INTERVAL_NANOS)) {
      long more = unlogged.getAndSet(0);
      if (more == 0) {
        log.error("{}: script error: {}", name, message);
      } else {
        log.error("{}: script error: {} ({} more since the last one logged)", name, message, more);
      }
    } else {
      unlogged.incrementAndGet();
    }
  }
}
