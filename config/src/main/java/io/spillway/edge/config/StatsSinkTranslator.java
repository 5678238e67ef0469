package io.spillway.edge.config;

import io.envoyproxy.envoy.config.bootstrap.v3.Bootstrap;
import io.envoyproxy.envoy.config.metrics.v3.DogStatsdSink;
import io.envoyproxy.envoy.config.metrics.v3.StatsSink;
import io.envoyproxy.envoy.config.metrics.v3.StatsdSink;
import io.spillway.edge.config.AddressTranslator.HostKind;
import io.spillway.edge.config.ExtensionRegistry.Category;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;

/**
 * The bootstrap's {@code stats_sinks}, {@code stats_flush_interval} and {@code stats_flush_on_admin}
 * → {@link StatsFlushConfig}, with Envoy's rules: the interval is at least 1 ms and under 5 minutes,
 * it and {@code stats_flush_on_admin} exclude each other, and {@code stats_flush_on_admin} may only
 * be {@code true}. A sink is {@code envoy.stat_sinks.statsd} or {@code envoy.stat_sinks.dog_statsd}
 * sending UDP to an IP literal; statsd over a TCP cluster ({@code tcp_cluster_name}) is refused.
 */
final class StatsSinkTranslator {

  private static final SupportedFields SINK = SupportedFields.of(StatsSink.getDescriptor(), "name", "typed_config");
  private static final SupportedFields STATSD = SupportedFields.of(StatsdSink.getDescriptor(), "address", "prefix");
  private static final SupportedFields DOG_STATSD = SupportedFields.of(DogStatsdSink.getDescriptor(),
      "address", "prefix", "max_bytes_per_datagram");

  private static final Duration MIN_INTERVAL = Duration.ofMillis(1);
  private static final Duration MAX_INTERVAL = Duration.ofMinutes(5);
  /** The largest payload of a UDP datagram over IPv4. */
  static final int MAX_DATAGRAM = 65_507;

  private StatsSinkTranslator() {}

  static StatsFlushConfig translate(Bootstrap bootstrap, FieldPath root, ExtensionRegistry registry)
      throws ConfigException {
    FieldPath intervalPath = root.field("stats_flush_interval");
    boolean onAdmin = bootstrap.getStatsFlushCase() == Bootstrap.StatsFlushCase.STATS_FLUSH_ON_ADMIN;
    if (onAdmin && !bootstrap.getStatsFlushOnAdmin()) {
      throw new ConfigException(root.field("stats_flush_on_admin"),
          "must be true when set (leave it out to flush every stats_flush_interval)");
    }
    if (onAdmin && bootstrap.hasStatsFlushInterval()) {
      throw new ConfigException(intervalPath, "only one of stats_flush_interval or stats_flush_on_admin may be set");
    }
    Duration interval = StatsFlushConfig.DEFAULT_INTERVAL;
    if (bootstrap.hasStatsFlushInterval()) {
      com.google.protobuf.Duration d = bootstrap.getStatsFlushInterval();
      interval = Duration.ofSeconds(d.getSeconds(), d.getNanos());
      if (interval.compareTo(MIN_INTERVAL) < 0 || interval.compareTo(MAX_INTERVAL) >= 0) {
        throw new ConfigException(intervalPath, "must be at least 1ms and less than 300s");
      }
    }
    List<StatsSinkConfig> sinks = new ArrayList<>();
    FieldPath sinksPath = root.field("stats_sinks");
    for (int i = 0; i < bootstrap.getStatsSinksCount(); i++) {
      sinks.add(sink(bootstrap.getStatsSinks(i), sinksPath.index(i), registry));
    }
    return new StatsFlushConfig(interval, onAdmin, sinks);
  }

  private static StatsSinkConfig sink(StatsSink sink, FieldPath path, ExtensionRegistry registry)
      throws ConfigException {
    SINK.check(sink, path);
    ExtensionRegistry.Extension ext =
        registry.select(sink.getName(), sink.hasTypedConfig(), sink.getTypedConfig(), Category.STATS_SINK, path);
    FieldPath typed = path.field("typed_config");
    String type = ext.typeName();
    if (type.equals(StatsdSink.getDescriptor().getFullName())) {
      StatsdSink statsd = registry.unpack(sink.getTypedConfig(), StatsdSink.class, Category.STATS_SINK, typed);
      if (statsd.getStatsdSpecifierCase() == StatsdSink.StatsdSpecifierCase.TCP_CLUSTER_NAME) {
        throw new ConfigException(typed.field("tcp_cluster_name"),
            "statsd over a TCP cluster is not supported: give the UDP address of the statsd listener");
      }
      STATSD.check(statsd, typed);
      if (!statsd.hasAddress()) {
        throw new ConfigException(typed.field("address"), "address is required");
      }
      return new StatsSinkConfig(StatsSinkConfig.Format.STATSD, address(statsd.getAddress(), typed.field("address")),
          prefix(statsd.getPrefix()), 0);
    }
    if (type.equals(DogStatsdSink.getDescriptor().getFullName())) {
      DogStatsdSink dog = registry.unpack(sink.getTypedConfig(), DogStatsdSink.class, Category.STATS_SINK, typed);
      DOG_STATSD.check(dog, typed);
      if (!dog.hasAddress()) {
        throw new ConfigException(typed.field("address"), "address is required");
      }
      int maxBytes = 0;
      if (dog.hasMaxBytesPerDatagram()) {
        long v = dog.getMaxBytesPerDatagram().getValue();
        FieldPath maxPath = typed.field("max_bytes_per_datagram");
        if (v == 0) {
          throw new ConfigException(maxPath, "must be greater than 0");
        }
        if (v < 0 || v > MAX_DATAGRAM) {
          throw new ConfigException(maxPath, Long.toUnsignedString(v)
              + " is larger than the largest UDP payload, " + MAX_DATAGRAM + " bytes");
        }
        maxBytes = (int) v;
      }
      return new StatsSinkConfig(StatsSinkConfig.Format.DOG_STATSD, address(dog.getAddress(), typed.field("address")),
          prefix(dog.getPrefix()), maxBytes);
    }
    throw new ConfigException(typed, type + " (" + ext.name() + ") is not supported");
  }

  private static SocketAddress address(io.envoyproxy.envoy.config.core.v3.Address address, FieldPath path)
      throws ConfigException {
    return AddressTranslator.translateDatagram(address, path, HostKind.IP_LITERAL,
        " (stats are sent to an IP address; Envoy does not resolve a sink's name either)");
  }

  private static String prefix(String prefix) {
    return prefix.isEmpty() ? StatsSinkConfig.DEFAULT_PREFIX : prefix;
  }
}
