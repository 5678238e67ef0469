package io.spillway.central.resources;

import com.google.protobuf.Message;
import java.util.Collections;
import java.util.EnumMap;
import java.util.Map;
import java.util.TreeMap;

/**
 * Resources by type and name, as one edge would receive them; immutable.
 *
 * @param byType every type, each a map name → resource sorted by name
 */
record ResourceSet(Map<ResourceType, Map<String, Message>> byType) {

  /** Copies the maps. */
  ResourceSet {
    Map<ResourceType, Map<String, Message>> copy = new EnumMap<>(ResourceType.class);
    for (ResourceType type : ResourceType.values()) {
      copy.put(type, Collections.unmodifiableMap(new TreeMap<>(byType.getOrDefault(type, Map.of()))));
    }
    byType = Collections.unmodifiableMap(copy);
  }

  /** The resources of one type. */
  Map<String, Message> of(ResourceType type) {
    return byType.get(type);
  }
}
