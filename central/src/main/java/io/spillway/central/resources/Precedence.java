package io.spillway.central.resources;

import java.util.Comparator;
import java.util.EnumMap;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

/**
 * Which stored resources an edge receives: those assigned to it plus those of every selector its
 * labels match; for one type and name, the edge's own wins over any selector's, and between two
 * selectors the one whose canonical text sorts first wins (deterministic on every replica).
 */
final class Precedence {

  private static final Comparator<StoredResource> RANK = Comparator
      .comparing((StoredResource r) -> r.target().isSelector())
      .thenComparing(r -> r.target().isSelector() ? r.target().selector() : "");

  private Precedence() {}

  /**
   * The winning live resources for an edge, by type and name.
   *
   * @param rows candidate rows (others are ignored: deleted ones, other edges', selectors that do not match)
   */
  static Map<ResourceType, Map<String, StoredResource>> winners(List<StoredResource> rows, String edgeId,
      Map<String, String> labels) {
    Map<ResourceType, Map<String, StoredResource>> winners = new EnumMap<>(ResourceType.class);
    for (ResourceType type : ResourceType.values()) {
      winners.put(type, new TreeMap<>());
    }
    Map<Target, Boolean> covers = new HashMap<>();
    for (StoredResource row : rows) {
      if (!row.live() || !covers.computeIfAbsent(row.target(), t -> t.covers(edgeId, labels))) {
        continue;
      }
      winners.get(row.type()).merge(row.name(), row, (a, b) -> RANK.compare(a, b) <= 0 ? a : b);
    }
    return winners;
  }
}
