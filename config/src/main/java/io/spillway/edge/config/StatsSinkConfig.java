package io.spillway.edge.config;

import java.util.Objects;

/**
 * One entry of the bootstrap's {@code stats_sinks}: a UDP statsd sink, as Envoy's
 * {@code envoy.stat_sinks.statsd} and {@code envoy.stat_sinks.dog_statsd} configure it.
 *
 * @param format the line format (flat names, or DogStatsD's tag-extracted names with tags)
 * @param address the IP literal and port datagrams are sent to
 * @param prefix prepended with a dot to every name; Envoy's default {@code envoy} when not given
 * @param maxBytesPerDatagram how many bytes of newline-separated lines one datagram may carry;
 *     0 sends one line per datagram (Envoy's default, and always so for {@link Format#STATSD})
 */
public record StatsSinkConfig(Format format, SocketAddress address, String prefix, int maxBytesPerDatagram) {

  /** Envoy's default prefix. */
  public static final String DEFAULT_PREFIX = "envoy";

  /** The line format of a sink. */
  public enum Format {
    /** {@code envoy.stat_sinks.statsd}: flat names, no tags. */
    STATSD,
    /** {@code envoy.stat_sinks.dog_statsd}: tag-extracted names and {@code |#tag:value,...}. */
    DOG_STATSD
  }

  public StatsSinkConfig {
    Objects.requireNonNull(format, "format");
    Objects.requireNonNull(address, "address");
    Objects.requireNonNull(prefix, "prefix");
    if (maxBytesPerDatagram < 0) {
      throw new IllegalArgumentException("maxBytesPerDatagram must not be negative: " + maxBytesPerDatagram);
    }
  }
}
