package io.spillway.edge.config;

import com.google.protobuf.UInt32Value;
import java.time.Duration;

/**
 * Conversions of proto values into the snapshot's Java values, each with the range check Envoy's
 * proto validation applies and the path of the field in the error.
 */
final class ProtoValues {

  private ProtoValues() {}

  /** A non-negative duration, or {@code fallback} when the field is unset. */
  static Duration duration(boolean has, com.google.protobuf.Duration value, FieldPath path, Duration fallback)
      throws ConfigException {
    if (!has) {
      return fallback;
    }
    Duration d = Duration.ofSeconds(value.getSeconds(), value.getNanos());
    if (d.isNegative()) {
      throw new ConfigException(path, "must not be negative");
    }
    return d;
  }

  /** A duration that must be greater than zero, or {@code fallback} when unset. */
  static Duration positiveDuration(boolean has, com.google.protobuf.Duration value, FieldPath path, Duration fallback)
      throws ConfigException {
    Duration d = duration(has, value, path, fallback);
    if (has && d.isZero()) {
      throw new ConfigException(path, "must be greater than 0");
    }
    return d;
  }

  /** A uint32 wrapper as an int within {@code [min, Integer.MAX_VALUE]}, or {@code fallback} when unset. */
  static int uint32(boolean has, UInt32Value value, FieldPath path, int min, int fallback) throws ConfigException {
    return has ? uint32(value.getValue(), path, min) : fallback;
  }

  /** A uint32 wrapper clamped to {@code Integer.MAX_VALUE} (a limit that large is no limit), or {@code fallback}. */
  static int uint32Clamped(boolean has, UInt32Value value, int fallback) {
    if (!has) {
      return fallback;
    }
    return (int) Math.min(Integer.toUnsignedLong(value.getValue()), Integer.MAX_VALUE);
  }

  /** A uint32 (held in a Java int) within {@code [min, Integer.MAX_VALUE]}. */
  static int uint32(int raw, FieldPath path, int min) throws ConfigException {
    long v = Integer.toUnsignedLong(raw);
    if (v < min) {
      throw new ConfigException(path, "must be at least " + min);
    }
    if (v > Integer.MAX_VALUE) {
      throw new ConfigException(path, v + " is larger than the supported maximum " + Integer.MAX_VALUE);
    }
    return (int) v;
  }

  /** A port in {@code [min, 65535]}. */
  static int port(int raw, FieldPath path, int min) throws ConfigException {
    long v = Integer.toUnsignedLong(raw);
    if (v < min || v > 65535) {
      throw new ConfigException(path, v + " is not a valid port (" + min + "-65535)");
    }
    return (int) v;
  }
}
