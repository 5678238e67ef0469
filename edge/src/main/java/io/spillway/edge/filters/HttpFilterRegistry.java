package io.spillway.edge.filters;

import io.spillway.edge.config.CorsPolicy;
import io.spillway.edge.config.CompressorConfig;
import io.spillway.edge.config.CsrfConfig;
import io.spillway.edge.config.DecompressorConfig;
import io.spillway.edge.config.ExtAuthzConfig;
import io.spillway.edge.config.FaultConfig;
import io.spillway.edge.config.GlobalRateLimitConfig;
import io.spillway.edge.config.HeaderToMetadataConfig;
import io.spillway.edge.config.HealthCheckFilterConfig;
import io.spillway.edge.config.HttpFilterConfig;
import io.spillway.edge.config.JwtAuthnConfig;
import io.spillway.edge.config.LocalRateLimitConfig;
import io.spillway.edge.config.LuaConfig;
import io.spillway.edge.config.RbacConfig;
import io.spillway.edge.filters.admission.AdmissionFilter;
import io.spillway.edge.filters.buffer.BufferFilter;
import io.spillway.edge.filters.cors.CorsFactory;
import io.spillway.edge.filters.compressor.CompressorFactory;
import io.spillway.edge.filters.csrf.CsrfFactory;
import io.spillway.edge.filters.decompressor.DecompressorFactory;
import io.spillway.edge.filters.extauthz.ExtAuthzFactory;
import io.spillway.edge.filters.fault.FaultFactory;
import io.spillway.edge.filters.grpcweb.GrpcWebFilter;
import io.spillway.edge.filters.headertometadata.HeaderToMetadataFactory;
import io.spillway.edge.filters.headertometadata.MetadataRules;
import io.spillway.edge.filters.healthcheck.HealthCheckFilter;
import io.spillway.edge.filters.jwtauthn.JwtAuthnFactory;
import io.spillway.edge.filters.lua.LuaFilterFactory;
import io.spillway.edge.filters.policylimit.PolicyRateLimits;
import io.spillway.edge.filters.ratelimit.GlobalRateLimitFactory;
import io.spillway.edge.filters.ratelimit.LocalRateLimitFactory;
import io.spillway.edge.filters.rbac.RbacFactory;
import io.spillway.edge.filters.router.RouterFactory;
import io.spillway.edge.http.filter.FilterContext;
import io.spillway.edge.http.filter.HttpFilterFactory;
import io.spillway.edge.router.RouteFilterCompiler;
import io.spillway.edge.runtime.Runtime;
import io.spillway.edge.stats.Scope;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.function.BiFunction;
import java.util.function.LongSupplier;

/**
 * The HTTP filters the edge runs, under Envoy's names: each name's factory builder. The config
 * translator has already checked the chain ({@code http_filters} order, router last, every name
 * known), so an unknown name here is a programming error.
 */
public final class HttpFilterRegistry {
  public static final String ROUTER = "envoy.filters.http.router";
  public static final String BUFFER = "envoy.filters.http.buffer";
  public static final String EXT_AUTHZ = "envoy.filters.http.ext_authz";
  public static final String LOCAL_RATELIMIT = "envoy.filters.http.local_ratelimit";
  public static final String RATELIMIT = "envoy.filters.http.ratelimit";
  public static final String CORS = "envoy.filters.http.cors";
  public static final String COMPRESSOR = "envoy.filters.http.compressor";
  public static final String FAULT = "envoy.filters.http.fault";
  public static final String HEALTH_CHECK = "envoy.filters.http.health_check";
  public static final String RBAC = "envoy.filters.http.rbac";
  public static final String JWT_AUTHN = "envoy.filters.http.jwt_authn";
  public static final String GRPC_WEB = "envoy.filters.http.grpc_web";
  public static final String LUA = "envoy.filters.http.lua";
  public static final String HEADER_TO_METADATA = "envoy.filters.http.header_to_metadata";
  public static final String CSRF = "envoy.filters.http.csrf";
  public static final String DECOMPRESSOR = "envoy.filters.http.decompressor";

  private static final Map<String, BiFunction<HttpFilterConfig, FilterContext, HttpFilterFactory>> FACTORIES =
      Map.ofEntries(
          Map.entry(ROUTER, (entry, context) -> new RouterFactory(entry.extension(), context)),
          Map.entry(BUFFER, (entry, context) -> BufferFilter.factory(entry.extension(),
              entry.settings(HttpFilterConfig.Buffer.class).maxRequestBytes(),
              context.httpScope().counter("downstream_rq_too_large"))),
          Map.entry(EXT_AUTHZ, (entry, context) -> new ExtAuthzFactory(entry.settings(ExtAuthzConfig.class), context)),
          Map.entry(LOCAL_RATELIMIT, (entry, context) -> new LocalRateLimitFactory(entry.name(),
              entry.settings(LocalRateLimitConfig.class), context.rootScope(), context.nanoClock(),
              context.runtime()::snapshot, context.localCluster())),
          Map.entry(RATELIMIT, (entry, context) -> new GlobalRateLimitFactory(
              entry.settings(GlobalRateLimitConfig.class), context)),
          Map.entry(CORS, (entry, context) -> new CorsFactory(entry.name(), context.httpScope(),
              context.runtime()::snapshot)),
          Map.entry(COMPRESSOR, CompressorFactory::new),
          Map.entry(DECOMPRESSOR, (entry, context) -> new DecompressorFactory(entry.name(),
              entry.settings(DecompressorConfig.class), context.httpScope(), context.runtime()::snapshot)),
          Map.entry(CSRF, (entry, context) -> new CsrfFactory(entry.name(), entry.settings(CsrfConfig.class),
              context.httpScope(), context.runtime()::snapshot)),
          Map.entry(GRPC_WEB, (entry, context) -> GrpcWebFilter.factory(entry.name())),
          Map.entry(FAULT, (entry, context) -> new FaultFactory(entry.name(), entry.settings(FaultConfig.class),
              context.httpScope(), context.runtime()::snapshot)),
          Map.entry(JWT_AUTHN, (entry, context) -> new JwtAuthnFactory(entry.name(),
              entry.settings(JwtAuthnConfig.class), context.httpScope(), context.runtime()::snapshot,
              JwtAuthnFactory.RemoteFetching.of(context))),
          Map.entry(HEALTH_CHECK, (entry, context) -> HealthCheckFilter.factory(entry.name(),
              entry.settings(HealthCheckFilterConfig.class), context.clusters(), context.healthCheckFailed())),
          Map.entry(LUA, (entry, context) -> new LuaFilterFactory(entry.name(), entry.settings(LuaConfig.class),
              context.httpScope(), context.workers() == null ? 1 : context.workers().size(), context.nanoClock())),
          Map.entry(RBAC, (entry, context) -> new RbacFactory(entry.name(), entry.settings(RbacConfig.class),
              context.httpScope())),
          Map.entry(HEADER_TO_METADATA, (entry, context) -> new HeaderToMetadataFactory(entry.name(),
              entry.settings(HeaderToMetadataConfig.class))));

  private HttpFilterRegistry() {}

  /** The names a chain may hold. */
  public static Set<String> names() {
    return FACTORIES.keySet();
  }

  /**
   * What routes' {@code typed_per_filter_config} becomes for their filters, built with each route
   * table (a route's local rate limit gets its own buckets and its stats in {@code root}; a CORS
   * policy, a route's compressor settings and its RBAC rules are used as translated, matchers already compiled;
   * a route's Lua script gets its copies, one per worker; a route's header-to-metadata rules are
   * compiled once for it).
   *
   * @param workers the edge's worker count
   */
  public static RouteFilterCompiler routeFilters(Scope root, LongSupplier nanoClock, Runtime runtime, int workers) {
    return (filterName, config) -> switch (config) {
      case LocalRateLimitConfig l -> LocalRateLimitFactory.routeConfig(l, root, nanoClock, runtime::snapshot);
      case GlobalRateLimitConfig.PerRoute p -> p;
      case CorsPolicy c -> c;
      case CompressorConfig.PerRoute p -> p;
      case FaultConfig f -> f;
      case RbacConfig r -> r;
      case JwtAuthnConfig.PerRoute j -> j;
      case LuaConfig.PerRoute l -> LuaFilterFactory.routeConfig(l, workers);
      case HeaderToMetadataConfig h -> MetadataRules.compile(h);
      case CsrfConfig c -> c;
    };
  }

  /**
   * The factories of one connection manager's chain: the policy's rate limits first (when given),
   * then inbound admission, then {@code http_filters} in order (the router last), the policy's
   * subject-keyed limits just before the router (after jwt_authn, which finds the subject).
   */
  public static List<HttpFilterFactory> chain(FilterContext context, PolicyRateLimits rateLimits) {
    List<HttpFilterFactory> chain = new ArrayList<>();
    if (rateLimits != null) {
      chain.add(rateLimits.factory());
    }
    chain.add(AdmissionFilter.factory(context.admission()));
    for (HttpFilterConfig entry : context.config().httpFilters()) {
      var builder = FACTORIES.get(entry.extension());
      if (builder == null) {
        throw new IllegalArgumentException("no HTTP filter " + entry.extension());
      }
      if (rateLimits != null && entry.extension().equals(ROUTER)) {
        chain.add(rateLimits.lateFactory());
      }
      chain.add(builder.apply(entry, context));
    }
    return List.copyOf(chain);
  }
}
