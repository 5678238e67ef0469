package io.spillway.edge.filters.jwtauthn;

import io.spillway.edge.config.JwtAuthnConfig;
import io.spillway.edge.http.filter.FilterContext;
import io.spillway.edge.http.filter.FilterChainBuilder;
import io.spillway.edge.http.filter.HttpFilterFactory;
import io.spillway.edge.http.message.RequestHeaders;
import io.spillway.edge.router.RouteMatcher;
import io.spillway.edge.runtime.RuntimeSnapshot;
import io.spillway.edge.stats.Counter;
import io.spillway.edge.stats.Scope;
import io.spillway.edge.upstream.Worker;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;
import java.util.function.Function;
import java.util.function.LongSupplier;
import java.util.function.Supplier;

/**
 * The jwt_authn filter of one connection manager ({@code envoy.filters.http.jwt_authn}): its
 * providers' verifiers and its rules and named requirements compiled once, shared by every
 * worker, each {@code remote_jwks} provider's {@link RemoteJwksCache} (its {@code async_fetch}
 * started here, as Envoy starts it when the filter config is created), and Envoy's stats under
 * {@code http.<stat_prefix>.jwt_authn.} ({@code allowed}, {@code denied},
 * {@code cors_preflight_bypassed}, {@code jwks_fetch_success}, {@code jwks_fetch_failed}).
 */
public final class JwtAuthnFactory implements HttpFilterFactory {

  /**
   * How {@code remote_jwks} providers get their keys.
   *
   * @param fetchers the fetch of each remote provider (through its cluster, in the edge)
   * @param nanoClock the monotonic clock their {@code cache_duration} is measured on
   * @param asyncWorkers the workers {@code async_fetch} fetches run on (one per provider, in turn)
   * @param asyncTimers each such worker's timer for the background refetches
   */
  public record RemoteFetching(
      Function<JwtAuthnConfig.RemoteKeys, RemoteJwksCache.Fetcher> fetchers,
      LongSupplier nanoClock,
      List<Worker> asyncWorkers,
      Function<Worker, RemoteJwksCache.Timer> asyncTimers) {

    /** For a filter whose providers all have {@code local_jwks}. */
    static final RemoteFetching NONE = new RemoteFetching(k -> {
      throw new IllegalStateException("remote_jwks needs the edge's clusters");
    }, System::nanoTime, List.of(), w -> {
      throw new IllegalStateException("remote_jwks needs the edge's workers");
    });

    /** The edge's: fetches through the filter context's clusters and guards, timers on the workers' loops. */
    public static RemoteFetching of(FilterContext context) {
      return new RemoteFetching(
          k -> JwksFetch.fetcher(k, context.clusters(), context.guards(), context.bufferLimitBytes()),
          context.nanoClock(), context.workers(), worker -> (task, delayNanos) -> {
            ScheduledFuture<?> f = worker.loop().schedule(task, delayNanos, TimeUnit.NANOSECONDS);
            return () -> f.cancel(false);
          });
    }
  }

  private final String name;
  private final JwtAuthnConfig config;
  private final List<RouteMatcher> ruleMatchers;
  /** Per rule, its check, or null when the rule requires nothing. */
  private final List<Requirements.Check> ruleChecks;
  private final Map<String, Requirements.Check> named;
  final Counter allowed;
  final Counter denied;
  final Counter corsPreflightBypassed;
  final Counter jwksFetchSuccess;
  final Counter jwksFetchFailed;
  /** What the listener waits for before it serves: async_fetch's first fetches without fast_listener. */
  private final CompletableFuture<Void> initialized;

  /**
   * @param name the chain entry's name, which routes' {@code typed_per_filter_config} refer to
   * @param config the filter's configuration
   * @param httpScope the connection manager's {@code http.<stat_prefix>.} scope
   * @param runtime the runtime (rules' {@code runtime_fraction})
   */
  public JwtAuthnFactory(String name, JwtAuthnConfig config, Scope httpScope, Supplier<RuntimeSnapshot> runtime) {
    this(name, config, httpScope, runtime, RemoteFetching.NONE);
  }

  /**
   * @param remote how {@code remote_jwks} providers fetch their keys
   */
  public JwtAuthnFactory(String name, JwtAuthnConfig config, Scope httpScope, Supplier<RuntimeSnapshot> runtime,
      RemoteFetching remote) {
    this.name = name;
    this.config = config;
    Scope scope = httpScope.scope("jwt_authn");
    if (!config.statPrefix().isEmpty()) {
      scope = scope.scope(config.statPrefix());
    }
    this.allowed = scope.counter("allowed");
    this.denied = scope.counter("denied");
    this.corsPreflightBypassed = scope.counter("cors_preflight_bypassed");
    this.jwksFetchSuccess = scope.counter("jwks_fetch_success");
    this.jwksFetchFailed = scope.counter("jwks_fetch_failed");
    Map<String, Requirements.ProviderCheck> providers = new TreeMap<>();
    List<RemoteJwksCache> asyncCaches = new ArrayList<>();
    for (JwtAuthnConfig.Provider p : config.providers().values()) {
      RemoteJwksCache cache = null;
      if (p.keys() instanceof JwtAuthnConfig.RemoteKeys keys) {
        cache = new RemoteJwksCache(keys, remote.fetchers().apply(keys), remote.nanoClock(), jwksFetchSuccess,
            jwksFetchFailed);
        if (keys.asyncFetch().isPresent()) {
          asyncCaches.add(cache);
        }
      }
      providers.put(p.name(), new Requirements.ProviderCheck(new ProviderVerifier(p, cache), new TokenExtractor(p),
          List.of()));
    }
    List<Requirements.ProviderCheck> all = List.copyOf(providers.values());
    List<RouteMatcher> matchers = new ArrayList<>();
    List<Requirements.Check> checks = new ArrayList<>();
    for (JwtAuthnConfig.Rule r : config.rules()) {
      matchers.add(RouteMatcher.of(r.match(), runtime));
      checks.add(r.requirement().map(q -> compile(q, providers, all)).orElse(null));
    }
    this.ruleMatchers = List.copyOf(matchers);
    this.ruleChecks = java.util.Collections.unmodifiableList(checks);
    Map<String, Requirements.Check> namedChecks = new TreeMap<>();
    config.requirementMap().forEach((k, q) -> namedChecks.put(k, compile(q, providers, all)));
    this.named = Map.copyOf(namedChecks);
    List<CompletableFuture<Void>> waits = new ArrayList<>();
    for (int i = 0; i < asyncCaches.size(); i++) {
      RemoteJwksCache cache = asyncCaches.get(i);
      Worker worker = remote.asyncWorkers().get(i % remote.asyncWorkers().size());
      cache.startAsync(worker, remote.asyncTimers().apply(worker));
      if (!cache.config().asyncFetch().orElseThrow().fastListener()) {
        waits.add(cache.firstFetch());
      }
    }
    this.initialized = CompletableFuture.allOf(waits.toArray(CompletableFuture[]::new));
  }

  /** Completes once every async_fetch provider without fast_listener has done its first fetch. */
  @Override
  public CompletionStage<Void> initialized() {
    return initialized;
  }

  private static Requirements.Check compile(JwtAuthnConfig.Requirement r, Map<String, Requirements.ProviderCheck> providers,
      List<Requirements.ProviderCheck> all) {
    return switch (r) {
      case JwtAuthnConfig.ProviderRequirement p -> p.audiences().isEmpty() ? providers.get(p.provider())
          : new Requirements.ProviderCheck(providers.get(p.provider()).provider(),
              providers.get(p.provider()).extractor(), p.audiences());
      case JwtAuthnConfig.RequiresAny any -> requiresAny(any, providers, all);
      case JwtAuthnConfig.RequiresAll each -> new Requirements.AllCheck(
          each.requirements().stream().map(q -> compile(q, providers, all)).toList());
      case JwtAuthnConfig.AllowMissing m -> new Requirements.AllowMissingCheck(all, false);
      case JwtAuthnConfig.AllowMissingOrFailed m -> new Requirements.AllowMissingCheck(all, true);
    };
  }

  /** Envoy's shape: {@code allow_missing…} entries become flags; alone, they are the check. */
  private static Requirements.Check requiresAny(JwtAuthnConfig.RequiresAny any,
      Map<String, Requirements.ProviderCheck> providers, List<Requirements.ProviderCheck> all) {
    boolean allowMissing = false;
    boolean allowMissingOrFailed = false;
    List<Requirements.Check> checks = new ArrayList<>();
    for (JwtAuthnConfig.Requirement q : any.requirements()) {
      switch (q) {
        case JwtAuthnConfig.AllowMissing m -> allowMissing = true;
        case JwtAuthnConfig.AllowMissingOrFailed m -> allowMissingOrFailed = true;
        default -> checks.add(compile(q, providers, all));
      }
    }
    if (checks.isEmpty()) {
      return new Requirements.AllowMissingCheck(all, allowMissingOrFailed);
    }
    return new Requirements.AnyCheck(List.copyOf(checks), allowMissing, allowMissingOrFailed);
  }

  @Override
  public String name() {
    return name;
  }

  @Override
  public void createFilters(FilterChainBuilder chain) {
    chain.addDecoderFilter(new JwtAuthnFilter(this));
  }

  JwtAuthnConfig config() {
    return config;
  }

  /** Whether the first rule that matches the request is a rule at all (false: no rule matched). */
  int ruleIndex(RequestHeaders request) {
    for (int i = 0; i < ruleMatchers.size(); i++) {
      if (ruleMatchers.get(i).matches(request)) {
        return i;
      }
    }
    return -1;
  }

  /** The check of rule {@code index}, or null when it requires nothing. */
  Requirements.Check ruleCheck(int index) {
    return ruleChecks.get(index);
  }

  /** The check of a {@code requirement_map} entry, or null when there is no such entry. */
  Requirements.Check named(String requirementName) {
    return named.get(requirementName);
  }
}
