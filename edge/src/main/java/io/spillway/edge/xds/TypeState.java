package io.spillway.edge.xds;

import com.google.protobuf.Message;
import io.spillway.edge.xds.LastKnownGoodStore.StoredResource;
import io.spillway.edge.xds.LastKnownGoodStore.StoredType;
import java.time.Instant;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.Map;
import java.util.Optional;
import java.util.Set;

/**
 * What the ADS client holds for one resource type: the accepted set and version, the subscription
 * and what was sent of it on the current stream. Confined to the client's thread.
 */
final class TypeState {

  final XdsResourceType type;
  final XdsStats.TypeStats stats;

  /** The accepted version, null until a set is accepted (from a server or the last-known-good file). */
  String version;
  /** The accepted set as handed to the sink. */
  Map<String, Message> resources = Map.of();
  /** The accepted set as received, with per-resource versions (Delta), for the last-known-good file. */
  Map<String, StoredResource> stored = Map.of();
  boolean fromLastKnownGood;
  Instant lastUpdate;
  String lastNackMessage;
  Instant lastNackTime;
  /** For EDS, RDS and RTDS, the names needed; ignored for wildcard types. */
  Set<String> names = Set.of();

  // Per stream.
  boolean sent;
  Set<String> sentNames = Set.of();
  String lastNonce = "";

  TypeState(XdsResourceType type, XdsStats.TypeStats stats) {
    this.type = type;
    this.stats = stats;
  }

  /** Whether this type is subscribed by name (EDS, RDS, RTDS) rather than as a wildcard. */
  boolean named() {
    return type == XdsResourceType.ENDPOINT || type == XdsResourceType.ROUTE || type == XdsResourceType.RUNTIME;
  }

  boolean accepted() {
    return version != null;
  }

  void resetStream() {
    sent = false;
    sentNames = Set.of();
  }

  void accept(String newVersion, Map<String, Message> set, Map<String, StoredResource> raw, Instant now,
      boolean lastKnownGood) {
    version = newVersion;
    resources = Collections.unmodifiableMap(new LinkedHashMap<>(set));
    stored = Collections.unmodifiableMap(new LinkedHashMap<>(raw));
    lastUpdate = now;
    fromLastKnownGood = lastKnownGood;
  }

  Optional<StoredType> toStored() {
    return accepted() ? Optional.of(new StoredType(version, stored)) : Optional.empty();
  }

  static Set<String> copy(Set<String> names) {
    return Collections.unmodifiableSet(new LinkedHashSet<>(names));
  }

  XdsStatus.TypeStatus status() {
    return new XdsStatus.TypeStatus(Optional.ofNullable(version), lastNonce, Optional.ofNullable(lastNackMessage),
        Optional.ofNullable(lastNackTime), Optional.ofNullable(lastUpdate), fromLastKnownGood,
        named() ? java.util.List.copyOf(names) : java.util.List.of(), resources);
  }
}
