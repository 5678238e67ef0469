package io.spillway.edge.config;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.time.Duration;
import org.junit.jupiter.api.Test;

class StatsSinkTranslationTest {

  private static final String STATSD = "type.googleapis.com/envoy.config.metrics.v3.StatsdSink";
  private static final String DOG = "type.googleapis.com/envoy.config.metrics.v3.DogStatsdSink";

  private static StatsFlushConfig flush(String top) throws ConfigException {
    return BootstrapYaml.minimal().top(top).translate().statsFlush();
  }

  private static String sink(String name, String type, String fields) {
    return """
        stats_sinks:
        - name: %s
          typed_config:
            "@type": %s
        %s
        """.formatted(name, type, fields.stripIndent().indent(4).stripTrailing());
  }

  private static void rejects(String top, String path, String rule) {
    assertThatThrownBy(() -> flush(top)).isInstanceOf(ConfigException.class)
        .satisfies(e -> assertThat(((ConfigException) e).path()).isEqualTo(path))
        .hasMessageContaining(rule);
  }

  @Test
  void noSinksFlushNothingEveryFiveSeconds() throws ConfigException {
    assertThat(BootstrapYaml.minimal().translate().statsFlush()).isEqualTo(StatsFlushConfig.NONE);
    assertThat(StatsFlushConfig.NONE.interval()).isEqualTo(Duration.ofSeconds(5));
  }

  @Test
  void aStatsdSinkWithEnvoysDefaultPrefix() throws ConfigException {
    StatsFlushConfig f = flush(sink("envoy.stat_sinks.statsd", STATSD, """
        address: { socket_address: { address: 127.0.0.1, port_value: 8125 } }
        """));

    assertThat(f.sinks()).containsExactly(new StatsSinkConfig(StatsSinkConfig.Format.STATSD,
        new SocketAddress("127.0.0.1", 8125), "envoy", 0));
    assertThat(f.onAdmin()).isFalse();
    assertThat(f.interval()).isEqualTo(Duration.ofSeconds(5));
  }

  @Test
  void aDogStatsdSinkWithPrefixDatagramSizeAndUdpProtocol() throws ConfigException {
    StatsFlushConfig f = flush(sink("envoy.stat_sinks.dog_statsd", DOG, """
        address: { socket_address: { protocol: UDP, address: "::1", port_value: 8125 } }
        prefix: edge-prod
        max_bytes_per_datagram: 1400
        """) + "stats_flush_interval: 0.250s\n");

    assertThat(f.sinks()).containsExactly(new StatsSinkConfig(StatsSinkConfig.Format.DOG_STATSD,
        new SocketAddress("::1", 8125), "edge-prod", 1400));
    assertThat(f.interval()).isEqualTo(Duration.ofMillis(250));
  }

  @Test
  void theTypeChoosesTheSinkAndTheNameIsOnlyALabel() throws ConfigException {
    StatsFlushConfig f = flush(sink("my-sink", DOG, """
        address: { socket_address: { address: 10.0.0.1, port_value: 8125 } }
        """) + "stats_flush_on_admin: true\n");

    assertThat(f.sinks().get(0).format()).isEqualTo(StatsSinkConfig.Format.DOG_STATSD);
    assertThat(f.sinks().get(0).maxBytesPerDatagram()).isZero();
    assertThat(f.onAdmin()).isTrue();
  }

  @Test
  void refusesWhatEnvoyRefusesWithThePath() {
    String udp = "address: { socket_address: { address: 127.0.0.1, port_value: 8125 } }\n";
    rejects(sink("envoy.stat_sinks.statsd", STATSD, udp) + "stats_flush_interval: 0s\n",
        "stats_flush_interval", "at least 1ms");
    rejects(sink("envoy.stat_sinks.statsd", STATSD, udp) + "stats_flush_interval: 300s\n",
        "stats_flush_interval", "less than 300s");
    rejects("stats_flush_interval: 1s\nstats_flush_on_admin: true\n",
        "stats_flush_interval", "only one of stats_flush_interval or stats_flush_on_admin");
    rejects("stats_flush_on_admin: false\n", "stats_flush_on_admin", "must be true");
    rejects(sink("envoy.stat_sinks.statsd", STATSD, "tcp_cluster_name: statsd\n"),
        "stats_sinks[0].typed_config.tcp_cluster_name", "TCP cluster is not supported");
    rejects(sink("envoy.stat_sinks.statsd", STATSD, "prefix: p\n"),
        "stats_sinks[0].typed_config.address", "address is required");
    rejects(sink("envoy.stat_sinks.dog_statsd", DOG, "prefix: p\n"),
        "stats_sinks[0].typed_config.address", "address is required");
    rejects(sink("envoy.stat_sinks.statsd", STATSD,
            "address: { socket_address: { address: statsd.local, port_value: 8125 } }\n"),
        "stats_sinks[0].typed_config.address.socket_address.address", "is not an IP address");
    rejects(sink("envoy.stat_sinks.statsd", STATSD,
            "address: { socket_address: { address: 127.0.0.1, port_value: 0 } }\n"),
        "stats_sinks[0].typed_config.address.socket_address.port_value", "not a valid port");
    rejects(sink("envoy.stat_sinks.statsd", STATSD,
            "address: { pipe: { path: /tmp/statsd.sock } }\n"),
        "stats_sinks[0].typed_config.address.pipe", "not supported");
    rejects(sink("envoy.stat_sinks.dog_statsd", DOG, udp + "max_bytes_per_datagram: 0\n"),
        "stats_sinks[0].typed_config.max_bytes_per_datagram", "greater than 0");
    rejects(sink("envoy.stat_sinks.dog_statsd", DOG, udp + "max_bytes_per_datagram: 65508\n"),
        "stats_sinks[0].typed_config.max_bytes_per_datagram", "largest UDP payload");
  }

  @Test
  void refusesSinksItDoesNotImplement() {
    rejects(sink("envoy.stat_sinks.metrics_service",
            "type.googleapis.com/envoy.config.metrics.v3.MetricsServiceConfig", ""),
        "stats_sinks[0].typed_config", "not an extension Spillway supports");
    rejects("stats_sinks:\n- name: envoy.stat_sinks.statsd\n",
        "stats_sinks[0].typed_config", "typed_config is required for envoy.stat_sinks.statsd");
    rejects("stats_sinks:\n- name: envoy.statsd\n",
        "stats_sinks[0].name", "former name of envoy.stat_sinks.statsd");
    rejects("stats_sinks:\n- name: envoy.stat_sinks.hystrix\n", "stats_sinks[0]", "is not supported");
  }

  @Test
  void aSinkTypeInAnotherSlotIsRefused() {
    rejects("""
        stats_sinks:
        - name: router
          typed_config:
            "@type": type.googleapis.com/envoy.extensions.filters.http.router.v3.Router
        """, "stats_sinks[0].typed_config", "expected a stats sink");
  }
}
