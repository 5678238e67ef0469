package io.spillway.edge.config;

/**
 * A {@code typed_per_filter_config} value that configures a filter for one route or virtual host
 * (rather than only turning it off): the most specific one replaces the connection manager's.
 */
public sealed interface RouteFilterConfig
    permits LocalRateLimitConfig, GlobalRateLimitConfig.PerRoute, CorsPolicy, CompressorConfig.PerRoute, FaultConfig,
        RbacConfig, JwtAuthnConfig.PerRoute, LuaConfig.PerRoute, HeaderToMetadataConfig, CsrfConfig {}
