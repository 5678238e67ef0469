package io.spillway.edge.config;

import static io.spillway.edge.config.BootstrapYaml.HCM;
import static io.spillway.edge.config.BootstrapYaml.ROUTE;
import static io.spillway.edge.config.BootstrapYaml.VHOST;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.google.protobuf.Any;
import io.envoyproxy.envoy.config.bootstrap.v3.Bootstrap;
import io.envoyproxy.envoy.config.listener.v3.Filter;
import io.envoyproxy.envoy.extensions.filters.http.router.v3.Router;
import org.junit.jupiter.api.Test;

/** Every rejection names the offending field's full path, and the first problem wins. */
class ConfigRejectionTest {

  private static final String CLUSTER_0 = "static_resources.clusters[0]";
  private static final String LISTENER_0 = "static_resources.listeners[0]";

  // --- bootstrap ---------------------------------------------------------------------------

  @Test
  void rejectsDynamicResourcesWithoutAnXdsServer() {
    BootstrapYaml.minimal().top("dynamic_resources: {ads_config: {api_type: GRPC}}\n")
        .rejects("dynamic_resources.ads_config.grpc_services: at least one gRPC service is required");
  }

  @Test
  void toleratesLaterSectionsOnlyWhileEmpty() throws ConfigException {
    BootstrapYaml.minimal().top("overload_manager: {}\nwatchdogs: {}\ncluster_manager: {}\n").translate();

    // The overload manager is translated by OverloadManagerTranslator: actions need monitors.
    BootstrapYaml.minimal().top("overload_manager: {refresh_interval: 0.25s, actions: [{name: nope, triggers: []}]}\n")
        .rejects("overload_manager.resource_monitors: at least one resource monitor is required");
    BootstrapYaml.minimal().top("layered_runtime: {layers: [{name: rtds, rtds_layer: {name: r}}]}\n")
        .rejects("layered_runtime.layers[0].rtds_layer: an RTDS layer needs dynamic_resources.ads_config"
            + " (runtime comes over ADS)");
    BootstrapYaml.minimal().top("stats_sinks: [{name: envoy.stat_sinks.statsd}]\n")
        .rejects("stats_sinks[0].typed_config: typed_config is required for envoy.stat_sinks.statsd");
  }

  @Test
  void rejectsAnyOtherBootstrapField() {
    BootstrapYaml.minimal().top("tracing: {http: {name: envoy.tracers.zipkin}}\n")
        .rejects("tracing: tracing is not supported");
    BootstrapYaml.minimal().top("node: {id: a, user_agent_name: x}\n")
        .rejects("node.user_agent_name: user_agent_name is not supported");
    BootstrapYaml.minimal().top("admin: {address: {socket_address: {address: localhost, port_value: 9901}}}\n")
        .rejects("admin.address.socket_address.address: \"localhost\" is not an IP address"
            + " (the admin listener binds to an IP address)");
  }

  // --- listeners ---------------------------------------------------------------------------

  @Test
  void rejectsDuplicateListenerNamesAndAddresses() {
    String listener = """
        static_resources:
          listeners:
          - name: a
            address: {socket_address: {address: 0.0.0.0, port_value: 80}}
            filter_chains: [{filters: [{name: hcm, typed_config: {
              "@type": type.googleapis.com/envoy.extensions.filters.network.http_connection_manager.v3.HttpConnectionManager,
              stat_prefix: a, http_filters: [{name: envoy.filters.http.router}], route_config: {}}}]}]
          - name: %s
            address: {socket_address: {address: 0.0.0.0, port_value: %d}}
            filter_chains: [{filters: [{name: hcm, typed_config: {
              "@type": type.googleapis.com/envoy.extensions.filters.network.http_connection_manager.v3.HttpConnectionManager,
              stat_prefix: b, http_filters: [{name: envoy.filters.http.router}], route_config: {}}}]}]
        """;

    assertRejects(listener.formatted("a", 81),
        "static_resources.listeners[1].name: duplicate listener name \"a\" (also static_resources.listeners[0])");
    assertRejects(listener.formatted("b", 80),
        "static_resources.listeners[1].address: duplicate address 0.0.0.0:80 (also static_resources.listeners[0])");
  }

  @Test
  void rejectsListenerFeaturesOutsideTheSubset() {
    BootstrapYaml.minimal().listener("enable_reuse_port: false")
        .rejects(LISTENER_0 + ".enable_reuse_port: enable_reuse_port is not supported");
    BootstrapYaml.minimal().chain("filter_chain_match: {direct_source_prefix_ranges: [{address_prefix: 10.0.0.0}]}")
        .rejects(LISTENER_0 + ".filter_chains[0].filter_chain_match.direct_source_prefix_ranges:"
            + " direct_source_prefix_ranges is not supported");
    BootstrapYaml.minimal().listener("connection_balance_config: {exact_balance: {}}")
        .rejects(LISTENER_0 + ".connection_balance_config: connection_balance_config is not supported");
    assertRejects(BootstrapYaml.minimal().yaml().replace("port_value: 10000}", "named_port: http}"),
        LISTENER_0 + ".address.socket_address.named_port: named_port is not supported");
    assertRejects(BootstrapYaml.minimal().yaml().replace("{address: 0.0.0.0, port_value: 10000}",
            "{protocol: UDP, address: 0.0.0.0, port_value: 10000}"),
        LISTENER_0 + ".address.socket_address.protocol: UDP is not supported");
    assertRejects(BootstrapYaml.minimal().yaml().replace("port_value: 10000}", "port_value: 70000}"),
        LISTENER_0 + ".address.socket_address.port_value: 70000 is not a valid port (0-65535)");
  }

  @Test
  void rejectsAWrongTypeInTheNetworkFilterSlot() throws ConfigException {
    Bootstrap valid = BootstrapYaml.minimal().parse();
    Bootstrap.Builder b = valid.toBuilder();
    b.getStaticResourcesBuilder().getListenersBuilder(0).getFilterChainsBuilder(0)
        .setFilters(0, Filter.newBuilder().setName("envoy.filters.network.http_connection_manager")
            .setTypedConfig(Any.pack(Router.getDefaultInstance())));

    assertThatThrownBy(() -> ConfigTranslator.translate(b.build()))
        .hasMessage(HCM + ": envoy.extensions.filters.http.router.v3.Router (envoy.filters.http.router)"
            + " cannot be used here: expected a network filter");
  }

  @Test
  void rejectsUnknownPathAndUnderscoreActionsInAProgrammaticBootstrap() throws Exception {
    Bootstrap valid = BootstrapYaml.minimal().parse();
    Filter filter = valid.getStaticResources().getListeners(0).getFilterChains(0).getFilters(0);
    var hcm = filter.getTypedConfig().unpack(
        io.envoyproxy.envoy.extensions.filters.network.http_connection_manager.v3.HttpConnectionManager.class);

    Bootstrap.Builder escaped = valid.toBuilder();
    escaped.getStaticResourcesBuilder().getListenersBuilder(0).getFilterChainsBuilder(0).setFilters(0,
        filter.toBuilder().setTypedConfig(Any.pack(hcm.toBuilder().setPathWithEscapedSlashesActionValue(9).build())));
    assertThatThrownBy(() -> ConfigTranslator.translate(escaped.build()))
        .hasMessage(HCM + ".path_with_escaped_slashes_action: unknown value 9 (IMPLEMENTATION_SPECIFIC_DEFAULT,"
            + " KEEP_UNCHANGED, REJECT_REQUEST, UNESCAPE_AND_REDIRECT or UNESCAPE_AND_FORWARD)");

    Bootstrap.Builder underscores = valid.toBuilder();
    underscores.getStaticResourcesBuilder().getListenersBuilder(0).getFilterChainsBuilder(0).setFilters(0,
        filter.toBuilder().setTypedConfig(Any.pack(hcm.toBuilder().setCommonHttpProtocolOptions(
            io.envoyproxy.envoy.config.core.v3.HttpProtocolOptions.newBuilder()
                .setHeadersWithUnderscoresActionValue(7)).build())));
    assertThatThrownBy(() -> ConfigTranslator.translate(underscores.build()))
        .hasMessage(HCM + ".common_http_protocol_options.headers_with_underscores_action: unknown value 7"
            + " (ALLOW, REJECT_REQUEST or DROP_HEADER)");
  }

  @Test
  void rejectsAnUnknownTypeInAProgrammaticBootstrapToo() throws ConfigException {
    Bootstrap valid = BootstrapYaml.minimal().parse();
    Bootstrap.Builder b = valid.toBuilder();
    b.getStaticResourcesBuilder().getListenersBuilder(0).getFilterChainsBuilder(0)
        .setFilters(0, Filter.newBuilder().setTypedConfig(
            Any.newBuilder().setTypeUrl("type.googleapis.com/acme.Filter").build()));

    assertThatThrownBy(() -> ConfigTranslator.translate(b.build()))
        .hasMessage(HCM + ": unknown @type \"type.googleapis.com/acme.Filter\" (not an extension Spillway supports)");
  }

  // --- connection manager --------------------------------------------------------------------

  @Test
  void rejectsConnectionManagerSettingsOutsideTheSubset() {
    BootstrapYaml.minimal().hcm("codec_type: HTTP3").rejects(HCM + ".codec_type: HTTP3 is not supported");
    BootstrapYaml.minimal().hcm("path_with_escaped_slashes_action: UNESCAPE")
        .rejects(HCM + ".path_with_escaped_slashes_action: \"UNESCAPE\" is not one of IMPLEMENTATION_SPECIFIC_DEFAULT,"
            + " KEEP_UNCHANGED, REJECT_REQUEST, UNESCAPE_AND_REDIRECT, UNESCAPE_AND_FORWARD");
    BootstrapYaml.minimal().hcm("common_http_protocol_options: {headers_with_underscores_action: 7}")
        .rejects(HCM + ".common_http_protocol_options.headers_with_underscores_action: 7 is not one of ALLOW,"
            + " REJECT_REQUEST, DROP_HEADER");
    BootstrapYaml.minimal().hcm("tracing: {}").rejects(HCM + ".tracing.provider: provider is required");
    BootstrapYaml.minimal().hcm("http_protocol_options: {allow_absolute_url: true}")
        .rejects(HCM + ".http_protocol_options.allow_absolute_url: allow_absolute_url is not supported");
    BootstrapYaml.minimal().hcm("http_protocol_options: {default_host_for_http_10: legacy}")
        .rejects(HCM + ".http_protocol_options.default_host_for_http_10: needs accept_http_10: true");
    BootstrapYaml.minimal().hcm("max_request_headers_kb: 9000")
        .rejects(HCM + ".max_request_headers_kb: must be at most 8192");
  }

  @Test
  void readsTheHttp10Options() throws ConfigException {
    assertThat(BootstrapYaml.minimal().translate().listeners().get(0).hcm().http1())
        .as("Envoy's default: HTTP/1.0 refused").isEqualTo(HttpConnectionManagerConfig.Http1Options.ENVOY_DEFAULTS);
    assertThat(BootstrapYaml.minimal().hcm("http_protocol_options: {accept_http_10: true, default_host_for_http_10: legacy}")
        .translate().listeners().get(0).hcm().http1()).isEqualTo(new HttpConnectionManagerConfig.Http1Options(true, "legacy"));
  }

  @Test
  void rejectsRdsWithoutAds() {
    assertRejects(BootstrapYaml.minimal().yaml().replace("          route_config:\n            name: local_route\n",
            "          rds: {route_config_name: r, config_source: {ads: {}}}\n          route_config_x:\n"),
        HCM + ".route_config_x: unknown field (not in"
            + " envoy.extensions.filters.network.http_connection_manager.v3.HttpConnectionManager)");
    String yaml = BootstrapYaml.minimal().yaml();
    String rds = yaml.substring(0, yaml.indexOf("          route_config:"))
        + "          rds: {route_config_name: r, config_source: {ads: {}}}\n"
        + yaml.substring(yaml.indexOf("  clusters:"));
    assertRejects(rds, HCM + ".rds: rds needs dynamic_resources.ads_config (routes come over ADS)");
  }

  @Test
  void rejectsSettingsWhoseEffectIsNotImplemented() {
    BootstrapYaml.minimal().listener("stat_prefix: public\n")
        .rejects(LISTENER_0 + ".stat_prefix: stat_prefix is not supported");
    BootstrapYaml.minimal().top("admin: {address: {socket_address: {address: 127.0.0.1, port_value: 9901}}, "
        + "profile_path: /tmp/envoy.prof}\n")
        .rejects("admin.profile_path: profile_path is not supported");
  }

  @Test
  void acceptsResetHighMemoryStreamWithItsBufferFactoryConfig() throws ConfigException {
    String monitor = "overload_manager:\n  resource_monitors:\n  - name: envoy.resource_monitors.injected_resource\n"
        + "    typed_config: {\"@type\": type.googleapis.com/envoy.extensions.resource_monitors.injected_resource.v3."
        + "InjectedResourceConfig, filename: /tmp/p}\n";
    String trigger = "    triggers: [{name: envoy.resource_monitors.injected_resource, threshold: {value: 0.9}}]\n";
    OverloadConfig overload = BootstrapYaml.minimal().top(monitor
        + "  buffer_factory_config: {minimum_account_to_track_power_of_two: 20}\n"
        + "  actions:\n  - name: envoy.overload_actions.reset_high_memory_stream\n" + trigger).translate().overload();
    org.assertj.core.api.Assertions.assertThat(overload.minimumAccountToTrackPowerOfTwo()).hasValue(20);
  }

  @Test
  void requiresAStatPrefix() {
    assertRejects(BootstrapYaml.minimal().yaml().replace("stat_prefix: ingress_http", "stat_prefix: \"\""),
        HCM + ".stat_prefix: stat_prefix is required");
  }

  @Test
  void rejectsUnsupportedHttpFiltersAndABadFilterOrder() {
    BootstrapYaml.minimal()
        .httpFilters("""
            - name: envoy.filters.http.wasm
            - name: envoy.filters.http.router
            """)
        .rejects(HCM + ".http_filters[0]: envoy.filters.http.wasm is not supported");
    BootstrapYaml.minimal()
        .httpFilters("""
            - name: envoy.filters.http.router
            - name: envoy.filters.http.buffer
              typed_config:
                "@type": type.googleapis.com/envoy.extensions.filters.http.buffer.v3.Buffer
                max_request_bytes: 1024
            """)
        .rejects(HCM + ".http_filters[1]: envoy.filters.http.buffer comes after envoy.filters.http.router,"
            + " which must be the last filter");
    BootstrapYaml.minimal()
        .httpFilters("""
            - name: envoy.filters.http.buffer
              typed_config:
                "@type": type.googleapis.com/envoy.extensions.filters.http.buffer.v3.Buffer
                max_request_bytes: 1024
            """)
        .rejects(HCM + ".http_filters: envoy.filters.http.router is required as the last filter");
    BootstrapYaml.minimal()
        .httpFilters("""
            - name: envoy.filters.http.buffer
            - name: envoy.filters.http.router
            """)
        .rejects(HCM + ".http_filters[0].typed_config: typed_config is required for envoy.filters.http.buffer");
    BootstrapYaml.minimal()
        .httpFilters("""
            - name: envoy.filters.http.buffer
              typed_config: {"@type": type.googleapis.com/envoy.extensions.filters.http.buffer.v3.Buffer}
            - name: envoy.filters.http.router
            """)
        .rejects(HCM + ".http_filters[0].typed_config.max_request_bytes: max_request_bytes is required");
    BootstrapYaml.minimal()
        .httpFilters("""
            - name: envoy.filters.http.router
              typed_config:
                "@type": type.googleapis.com/envoy.extensions.filters.http.router.v3.Router
                suppress_envoy_headers: true
            """)
        .rejects(HCM + ".http_filters[0].typed_config.suppress_envoy_headers: suppress_envoy_headers is not"
            + " supported");
  }

  // --- routes --------------------------------------------------------------------------------

  @Test
  void rejectsABadRegexNamingTheField() {
    BootstrapYaml.minimal()
        .routes("""
            - match: {safe_regex: {regex: "/items/(["}}
              route: {cluster: backend}
            """)
        .rejects(ROUTE + ".match.safe_regex.regex: invalid regular expression \"/items/([\": Unclosed character"
            + " class near index 8");
    BootstrapYaml.minimal()
        .routes("""
            - match:
                prefix: /
                headers: [{name: x-v, string_match: {safe_regex: {regex: "*"}}}]
              route: {cluster: backend}
            """)
        .rejects(ROUTE + ".match.headers[0].string_match.safe_regex.regex: invalid regular expression \"*\":"
            + " Dangling meta character '*' near index 0");
  }

  @Test
  void rejectsARouteToAMissingCluster() {
    BootstrapYaml.minimal()
        .routes("""
            - match: {prefix: /}
              route: {cluster: nope}
            """)
        .rejects(ROUTE + ".route.cluster: unknown cluster \"nope\" (no cluster of that name is configured)");
    BootstrapYaml.minimal()
        .routes("""
            - match: {prefix: /}
              route: {weighted_clusters: {clusters: [{name: backend, weight: 1}, {name: gone, weight: 1}]}}
            """)
        .rejects(ROUTE + ".route.weighted_clusters.clusters[1].name: unknown cluster \"gone\""
            + " (no cluster of that name is configured)");
  }

  @Test
  void rejectsWeightedClustersWhoseWeightsAddUpToZero() {
    BootstrapYaml.minimal()
        .routes("""
            - match: {prefix: /}
              route: {weighted_clusters: {clusters: [{name: backend, weight: 0}, {name: backend}]}}
            """)
        .rejects(ROUTE + ".route.weighted_clusters: the sum of the cluster weights must be greater than 0");
    BootstrapYaml.minimal()
        .routes("""
            - match: {prefix: /}
              route: {weighted_clusters: {clusters: [{name: backend, weight: 3}], total_weight: 100}}
            """)
        .rejects(ROUTE + ".route.weighted_clusters.total_weight: is 100 but the cluster weights add up to 3");
  }

  @Test
  void rejectsDuplicateAndMalformedDomains() {
    BootstrapYaml.minimal()
        .virtualHosts("""
            - name: a
              domains: [example.com]
              routes: [{match: {prefix: /}, route: {cluster: backend}}]
            - name: b
              domains: [Example.com]
              routes: [{match: {prefix: /}, route: {cluster: backend}}]
            """)
        .rejects(HCM + ".route_config.virtual_hosts[1].domains[0]: duplicate domain \"example.com\" (also "
            + VHOST + ".domains[0])");
    BootstrapYaml.minimal()
        .virtualHosts("""
            - name: a
              domains: ["*foo.*"]
              routes: []
            """)
        .rejects(VHOST + ".domains[0]: \"*foo.*\" is not a valid domain: a wildcard may only be the whole domain or"
            + " its first or last character");
    BootstrapYaml.minimal()
        .virtualHosts("""
            - name: a
              domains: ["foo.*.com"]
            """)
        .rejects(VHOST + ".domains[0]: \"foo.*.com\" is not a valid domain: a wildcard may only be the whole domain"
            + " or its first or last character");
    BootstrapYaml.minimal().virtualHosts("- name: a\n")
        .rejects(VHOST + ".domains: at least one domain is required");
  }

  @Test
  void rejectsUnknownRetryConditions() {
    BootstrapYaml.minimal()
        .routes("""
            - match: {prefix: /}
              route: {cluster: backend, retry_policy: {retry_on: "5xx,refused-stream"}}
            """)
        .rejects(ROUTE + ".route.retry_policy.retry_on: refused-stream is not supported");
    BootstrapYaml.minimal()
        .routes("""
            - match: {prefix: /}
              route:
                cluster: backend
                retry_policy: {retry_on: 5xx, retry_back_off: {base_interval: 1s, max_interval: 0.5s}}
            """)
        .rejects(ROUTE + ".route.retry_policy.retry_back_off.max_interval: must be at least base_interval");
    BootstrapYaml.minimal()
        .routes("""
            - match: {prefix: /}
              route: {cluster: backend, retry_policy: {retry_on: 5xx, retry_host_predicate: [{name: x}]}}
            """)
        .rejects(ROUTE + ".route.retry_policy.retry_host_predicate: retry_host_predicate is not supported");
  }

  @Test
  void rejectsRouteFeaturesOutsideTheSubset() {
    BootstrapYaml.minimal()
        .routes("""
            - match: {prefix: /}
              route: {cluster: backend, hash_policy: [{filter_state: {key: x}}]}
            """)
        .rejects(ROUTE + ".route.hash_policy[0].filter_state: filter_state is not supported");
    BootstrapYaml.minimal()
        .routes("""
            - match: {safe_regex: {regex: "/a.*"}}
              route: {cluster: backend, prefix_rewrite: /b}
            """)
        .rejects(ROUTE + ".route.prefix_rewrite: prefix_rewrite cannot be used with a safe_regex match");
    BootstrapYaml.minimal()
        .routes("""
            - match: {prefix: /}
              direct_response: {status: 99}
            """)
        .rejects(ROUTE + ".direct_response.status: 99 is not between 200 and 599");
    BootstrapYaml.minimal()
        .routes("""
            - match: {prefix: /}
              direct_response: {status: 200, body: {filename: /tmp/body}}
            """)
        .rejects(ROUTE + ".direct_response.body.filename: filename is not supported");
    BootstrapYaml.minimal()
        .routes("- match: {prefix: /}\n")
        .rejects(ROUTE + ": one of route, redirect or direct_response is required");
    BootstrapYaml.minimal()
        .routes("- route: {cluster: backend}\n")
        .rejects(ROUTE + ".match: match is required");
  }

  @Test
  void rejectsHeaderMutationsEnvoyWouldRejectOrSpillwayCannotExpress() {
    BootstrapYaml.minimal()
        .routes("""
            - match: {prefix: /}
              route: {cluster: backend}
              request_headers_to_add: [{header: {key: x-client, value: "%DOWNSTREAM_REMOTE_ADRESS%"}}]
            """)
        .rejects(ROUTE + ".request_headers_to_add[0].header.value: unknown or unsupported command operator"
            + " %DOWNSTREAM_REMOTE_ADRESS%");
    BootstrapYaml.minimal()
        .routes("""
            - match: {prefix: /}
              route: {cluster: backend}
              request_headers_to_add: [{header: {key: Host, value: x}}]
            """)
        .rejects(ROUTE + ".request_headers_to_add[0].header.key: \"Host\" may not be modified (pseudo-headers and"
            + " host are protected)");
    BootstrapYaml.minimal()
        .routes("""
            - match: {prefix: /}
              route: {cluster: backend}
              response_headers_to_remove: [":status"]
            """)
        .rejects(ROUTE + ".response_headers_to_remove[0]: \":status\" may not be removed (pseudo-headers are"
            + " protected)");
    BootstrapYaml.minimal()
        .routes("""
            - match: {prefix: /}
              route: {cluster: backend}
              request_headers_to_add: [{header: {key: x-a, value: b}, append_action: ADD_IF_ABSENT}]
            """)
        .rejects(ROUTE + ".request_headers_to_add[0].append_action: ADD_IF_ABSENT is not supported");
    BootstrapYaml.minimal()
        .routes("""
            - match: {prefix: /}
              route: {cluster: backend}
              request_headers_to_add:
              - {header: {key: x-a, value: b}, append: false, append_action: OVERWRITE_IF_EXISTS_OR_ADD}
            """)
        .rejects(ROUTE + ".request_headers_to_add[0].append_action: append and append_action cannot both be set");
    BootstrapYaml.minimal()
        .routes("""
            - match: {prefix: /}
              route: {cluster: backend}
              request_headers_to_add: [{header: {key: "bad header", value: b}}]
            """)
        .rejects(ROUTE + ".request_headers_to_add[0].header.key: \"bad header\" is not a valid header name");
  }

  // --- clusters ------------------------------------------------------------------------------

  @Test
  void rejectsUnsupportedLoadBalancers() {
    BootstrapYaml.minimal().clusters("- {name: backend, lb_policy: CLUSTER_PROVIDED}\n")
        .rejects(CLUSTER_0 + ".lb_policy: CLUSTER_PROVIDED is not supported");
    BootstrapYaml.minimal()
        .clusters("- {name: backend, lb_policy: LEAST_REQUEST, least_request_lb_config: {choice_count: 1}}\n")
        .rejects(CLUSTER_0 + ".least_request_lb_config.choice_count: must be at least 2");
  }

  @Test
  void rejectsUnsupportedDiscoveryTypes() {
    BootstrapYaml.minimal().clusters("- {name: backend, type: ORIGINAL_DST}\n")
        .rejects(CLUSTER_0 + ".type: ORIGINAL_DST is not supported");
    BootstrapYaml.minimal().clusters("- {name: backend, type: EDS}\n")
        .rejects(CLUSTER_0 + ".type: EDS needs dynamic_resources.ads_config (endpoints come over ADS)");
  }

  @Test
  void rejectsAStaticClusterWithADnsName() {
    BootstrapYaml.minimal()
        .clusters("""
            - name: backend
              type: STATIC
              load_assignment:
                endpoints:
                - lb_endpoints:
                  - endpoint: {address: {socket_address: {address: 127.0.0.1, port_value: 80}}}
                  - endpoint: {address: {socket_address: {address: backend.internal, port_value: 80}}}
            """)
        .rejects(CLUSTER_0 + ".load_assignment.endpoints[0].lb_endpoints[1].endpoint.address.socket_address.address:"
            + " \"backend.internal\" is not an IP address (a STATIC cluster needs IP addresses; use STRICT_DNS or"
            + " LOGICAL_DNS for names)");
  }

  @Test
  void rejectsBadEndpoints() {
    BootstrapYaml.minimal()
        .clusters("""
            - name: backend
              type: STRICT_DNS
              load_assignment:
                endpoints:
                - lb_endpoints:
                  - endpoint: {address: {socket_address: {address: "bad host", port_value: 80}}}
            """)
        .rejects(CLUSTER_0 + ".load_assignment.endpoints[0].lb_endpoints[0].endpoint.address.socket_address.address:"
            + " \"bad host\" is neither an IP address nor a DNS name");
    BootstrapYaml.minimal()
        .clusters("""
            - name: backend
              load_assignment:
                endpoints:
                - lb_endpoints:
                  - endpoint: {address: {socket_address: {address: 127.0.0.1, port_value: 0}}}
            """)
        .rejects(CLUSTER_0 + ".load_assignment.endpoints[0].lb_endpoints[0].endpoint.address.socket_address"
            + ".port_value: 0 is not a valid port (1-65535)");
    BootstrapYaml.minimal()
        .clusters("""
            - name: backend
              load_assignment:
                endpoints:
                - priority: 129
                  lb_endpoints: []
            """)
        .rejects(CLUSTER_0 + ".load_assignment.endpoints[0].priority: must be at most 128 (got 129)");
  }

  @Test
  void rejectsAHighPriorityThreshold() {
    BootstrapYaml.minimal()
        .clusters("""
            - name: backend
              circuit_breakers:
                thresholds:
                - {priority: DEFAULT, max_connections: 10}
                - {priority: HIGH, max_connections: 20}
            """)
        .rejects(CLUSTER_0 + ".circuit_breakers.thresholds[1].priority: HIGH is not supported");
  }

  @Test
  void rejectsDuplicateClusterNames() {
    BootstrapYaml.minimal()
        .clusters("""
            - name: backend
            - name: other
            - name: backend
            """)
        .rejects("static_resources.clusters[2].name: duplicate cluster name \"backend\" (also"
            + " static_resources.clusters[0])");
  }

  @Test
  void rejectsTransportSocketMatchesOnClusters() {
    BootstrapYaml.minimal()
        .clusters("""
            - name: backend
              transport_socket_matches:
              - name: tls
                match: {tls: "true"}
                transport_socket:
                  name: envoy.transport_sockets.tls
                  typed_config:
                    "@type": type.googleapis.com/envoy.extensions.transport_sockets.tls.v3.UpstreamTlsContext
            """)
        .rejects(CLUSTER_0 + ".transport_socket_matches: transport_socket_matches is not supported");
  }

  @Test
  void rejectsHealthCheckingAndOutlierDetectionOutsideTheSubset() {
    BootstrapYaml.minimal()
        .clusters("""
            - name: backend
              health_checks: [{timeout: 1s, interval: 5s, http_health_check: {path: /healthz}}]
            """)
        .rejects(CLUSTER_0 + ".health_checks[0].unhealthy_threshold: unhealthy_threshold is required");
    BootstrapYaml.minimal()
        .clusters("""
            - name: backend
              health_checks: [{interval: 5s, unhealthy_threshold: 2, healthy_threshold: 1, tcp_health_check: {}}]
            """)
        .rejects(CLUSTER_0 + ".health_checks[0].timeout: timeout is required");
    BootstrapYaml.minimal()
        .clusters("""
            - name: backend
              health_checks: [{timeout: 1s, interval: 5s, unhealthy_threshold: 2, healthy_threshold: 1,
                               grpc_health_check: {}}]
            """)
        .rejects(CLUSTER_0 + ".health_checks[0].grpc_health_check: grpc_health_check is not supported");
    BootstrapYaml.minimal()
        .clusters("""
            - name: backend
              health_checks: [{timeout: 1s, interval: 5s, unhealthy_threshold: 2, healthy_threshold: 1,
                               http_health_check: {path: /healthz, service_name_matcher: {prefix: x}}}]
            """)
        .rejects(CLUSTER_0 + ".health_checks[0].http_health_check.service_name_matcher: service_name_matcher is not"
            + " supported");
    BootstrapYaml.minimal()
        .clusters("""
            - name: backend
              health_checks: [{timeout: 1s, interval: 5s, unhealthy_threshold: 2, healthy_threshold: 1,
                               http_health_check: {path: /healthz, expected_statuses: [{start: 200, end: 200}]}}]
            """)
        .rejects(CLUSTER_0 + ".health_checks[0].http_health_check.expected_statuses[0].end: must be greater than"
            + " start and at most 600 (the end is exclusive)");
    BootstrapYaml.minimal()
        .clusters("""
            - name: backend
              health_checks: [{timeout: 1s, interval: 5s, unhealthy_threshold: 2, healthy_threshold: 1,
                               tls_options: {alpn_protocols: [h2]}, tcp_health_check: {}}]
            """)
        .rejects(CLUSTER_0 + ".health_checks[0].tls_options: tls_options is not supported");
    BootstrapYaml.minimal().clusters("- {name: backend, outlier_detection: {max_ejection_percent: 101}}\n")
        .rejects(CLUSTER_0 + ".outlier_detection.max_ejection_percent: must be a percentage between 0 and 100");
    BootstrapYaml.minimal().clusters("- {name: backend, outlier_detection: {monitors: [{name: x}]}}\n")
        .rejects(CLUSTER_0 + ".outlier_detection.monitors: monitors is not supported");
    BootstrapYaml.minimal().clusters("- {name: backend, common_lb_config: {update_merge_window: 1s}}\n")
        .rejects(CLUSTER_0 + ".common_lb_config.update_merge_window: update_merge_window is not supported");
  }

  @Test
  void rejectsConflictingOrUnsupportedProtocolOptions() {
    BootstrapYaml.minimal()
        .clusters("""
            - name: backend
              http2_protocol_options: {}
              typed_extension_protocol_options:
                envoy.extensions.upstreams.http.v3.HttpProtocolOptions:
                  "@type": type.googleapis.com/envoy.extensions.upstreams.http.v3.HttpProtocolOptions
                  explicit_http_config: {http2_protocol_options: {}}
            """)
        .rejects(CLUSTER_0 + ".http2_protocol_options: http2_protocol_options cannot be combined with " + CLUSTER_0
            + ".typed_extension_protocol_options[\"envoy.extensions.upstreams.http.v3.HttpProtocolOptions\"]; set it"
            + " there");
    BootstrapYaml.minimal()
        .clusters("""
            - name: backend
              typed_extension_protocol_options:
                envoy.extensions.upstreams.http.v3.HttpProtocolOptions:
                  "@type": type.googleapis.com/envoy.extensions.upstreams.http.v3.HttpProtocolOptions
                  explicit_http_config: {http2_protocol_options: {allow_metadata: true}}
            """)
        .rejects(CLUSTER_0 + ".typed_extension_protocol_options[\"envoy.extensions.upstreams.http.v3"
            + ".HttpProtocolOptions\"].explicit_http_config.http2_protocol_options.allow_metadata:"
            + " allow_metadata is not supported");
    BootstrapYaml.minimal()
        .clusters("""
            - name: backend
              typed_extension_protocol_options:
                envoy.extensions.upstreams.http.v3.HttpProtocolOptions:
                  "@type": type.googleapis.com/envoy.extensions.upstreams.http.v3.HttpProtocolOptions
                  auto_config: {}
            """)
        .rejects(CLUSTER_0 + ".typed_extension_protocol_options[\"envoy.extensions.upstreams.http.v3"
            + ".HttpProtocolOptions\"].auto_config: auto_config is not supported");
  }

  @Test
  void reportsTheFirstProblemOnly() {
    ConfigException e = org.assertj.core.api.Assertions.catchThrowableOfType(ConfigException.class,
        () -> BootstrapYaml.minimal()
            .clusters("- {name: backend, lb_policy: CLUSTER_PROVIDED, type: ORIGINAL_DST}\n")
            .translate());

    assertThat(e.path()).isEqualTo(CLUSTER_0 + ".type");
    assertThat(e.rule()).isEqualTo("ORIGINAL_DST is not supported");
  }

  private static void assertRejects(String yaml, String message) {
    assertThatThrownBy(() -> ConfigTranslator.translate(BootstrapLoader.parse(yaml, BootstrapLoader.Format.YAML)))
        .isInstanceOf(ConfigException.class)
        .hasMessage(message);
  }
}
