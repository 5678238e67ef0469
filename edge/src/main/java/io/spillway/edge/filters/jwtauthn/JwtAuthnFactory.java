package io.spillway.edge.filters.jwtauthn;

import io.spillway.edge.config.JwtAuthnConfig;
import io.spillway.edge.http.filter.FilterChainBuilder;
import io.spillway.edge.http.filter.HttpFilterFactory;
import io.spillway.edge.http.message.RequestHeaders;
import io.spillway.edge.router.RouteMatcher;
import io.spillway.edge.runtime.RuntimeSnapshot;
import io.spillway.edge.stats.Counter;
import io.spillway.edge.stats.Scope;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.function.Supplier;

/**
 * The jwt_authn filter of one connection manager ({@code envoy.filters.http.jwt_authn}): its
 * providers' verifiers and its rules and named requirements compiled once, shared by every
 * worker, and Envoy's stats under {@code http.<stat_prefix>.jwt_authn.} ({@code allowed},
 * {@code denied}, {@code cors_preflight_bypassed}).
 */
public final class JwtAuthnFactory implements HttpFilterFactory {
  private final String name;
  private final JwtAuthnConfig config;
  private final List<RouteMatcher> ruleMatchers;
  /** Per rule, its check, or null when the rule requires nothing. */
  private final List<Requirements.Check> ruleChecks;
  private final Map<String, Requirements.Check> named;
  final Counter allowed;
  final Counter denied;
  final Counter corsPreflightBypassed;

  /**
   * @param name the chain entry's name, which routes' {@code typed_per_filter_config} refer to
   * @param config the filter's configuration
   * @param httpScope the connection manager's {@code http.<stat_prefix>.} scope
   * @param runtime the runtime (rules' {@code runtime_fraction})
   */
  public JwtAuthnFactory(String name, JwtAuthnConfig config, Scope httpScope, Supplier<RuntimeSnapshot> runtime) {
    this.name = name;
    this.config = config;
    Map<String, Requirements.ProviderCheck> providers = new TreeMap<>();
    for (JwtAuthnConfig.Provider p : config.providers().values()) {
      providers.put(p.name(), new Requirements.ProviderCheck(new ProviderVerifier(p), new TokenExtractor(p), List.of()));
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
    Scope scope = httpScope.scope("jwt_authn");
    if (!config.statPrefix().isEmpty()) {
      scope = scope.scope(config.statPrefix());
    }
    this.allowed = scope.counter("allowed");
    this.denied = scope.counter("denied");
    this.corsPreflightBypassed = scope.counter("cors_preflight_bypassed");
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
