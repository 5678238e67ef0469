package io.spillway.edge.http.filter;

import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;

/**
 * One stream's dynamic metadata (Envoy's {@code StreamInfo::dynamicMetadata()}, an
 * {@code envoy.config.core.v3.Metadata}'s {@code filter_metadata}): namespace → key →
 * {@link MetadataValue}. Filters write it (the header-to-metadata filter); the access log, header
 * value formats and RBAC read it. Owned by one stream and used only on its worker loop: no locks.
 * A stream has none until the first write ({@link StreamInfo#dynamicMetadata()} is null until then).
 */
public final class DynamicMetadata {
  private final TreeMap<String, TreeMap<String, MetadataValue>> namespaces = new TreeMap<>();

  DynamicMetadata() {}

  /**
   * Sets {@code key} in {@code namespace} to {@code value}, replacing what it held (Envoy merges a
   * filter's struct into the namespace the same way, key by key).
   */
  public void put(String namespace, String key, MetadataValue value) {
    namespaces.computeIfAbsent(namespace, n -> new TreeMap<>()).put(key, java.util.Objects.requireNonNull(value));
  }

  /** The namespaces written so far, sorted. */
  public Set<String> namespaces() {
    return Collections.unmodifiableSet(namespaces.keySet());
  }

  /** The fields of {@code namespace}, sorted by key (a read-only view), or null when it has none. */
  public Map<String, MetadataValue> namespace(String namespace) {
    TreeMap<String, MetadataValue> fields = namespaces.get(namespace);
    return fields == null ? null : Collections.unmodifiableMap(fields);
  }

  /**
   * The value at {@code path} in {@code namespace} (Envoy's {@code Config::Metadata::metadataValue}):
   * the first key's value, then for each further key the field of that struct; null when a key is
   * missing or a value on the way is not a struct. An empty path is not a value: use {@link #namespace}.
   */
  public MetadataValue value(String namespace, List<String> path) {
    TreeMap<String, MetadataValue> fields = namespaces.get(namespace);
    if (fields == null || path.isEmpty()) {
      return null;
    }
    MetadataValue v = fields.get(path.get(0));
    for (int i = 1; i < path.size() && v != null; i++) {
      v = v instanceof MetadataValue.StructValue s ? s.fields().get(path.get(i)) : null;
    }
    return v;
  }
}
