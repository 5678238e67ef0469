package io.spillway.central.resources;

import io.spillway.central.edges.LabelSelector;
import java.util.Map;
import java.util.Objects;
import java.util.TreeSet;

/**
 * Whom a resource is assigned to: one edge, or every edge whose labels match a selector (the
 * syntax of {@link LabelSelector}; the empty selector matches every edge). A selector is kept in
 * a canonical form — requirements sorted and de-duplicated, no spaces — so {@code b=2, a=1} and
 * {@code a=1,b=2} name the same assignment.
 *
 * @param edgeId the edge, or null for a selector
 * @param selector the canonical selector, or null for an edge
 */
public record Target(String edgeId, String selector) {

  /** Exactly one of the two. */
  public Target {
    if ((edgeId == null) == (selector == null)) {
      throw new IllegalArgumentException("a target is an edge id or a selector");
    }
  }

  /** One edge. */
  public static Target edge(String edgeId) {
    return new Target(Objects.requireNonNull(edgeId, "edgeId"), null);
  }

  /**
   * Every edge a selector matches.
   *
   * @throws IllegalArgumentException naming the bad requirement
   */
  public static Target selector(String text) {
    TreeSet<String> parts = new TreeSet<>();
    for (LabelSelector.Requirement r : LabelSelector.parse(text).requirements()) {
      parts.add(switch (r.operator()) {
        case EQUALS -> r.key() + "=" + r.value();
        case NOT_EQUALS -> r.key() + "!=" + r.value();
        case EXISTS -> r.key();
        case NOT_EXISTS -> "!" + r.key();
      });
    }
    return new Target(null, String.join(",", parts));
  }

  /** Whether this is a selector. */
  public boolean isSelector() {
    return selector != null;
  }

  /** Whether the edge with these labels receives resources assigned here. */
  public boolean covers(String edge, Map<String, String> labels) {
    return edgeId != null ? edgeId.equals(edge) : LabelSelector.parse(selector).matches(labels);
  }

  /** The database key: {@code edge:<id>} or {@code selector:<selector>}. */
  String key() {
    return edgeId != null ? "edge:" + edgeId : "selector:" + selector;
  }

  @Override
  public String toString() {
    return edgeId != null ? "edge " + edgeId : "selector '" + selector + "'";
  }
}
