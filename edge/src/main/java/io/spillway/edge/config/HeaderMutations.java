package io.spillway.edge.config;

import java.util.List;

/**
 * Header additions and removals of a route, virtual host or route configuration.
 *
 * @param add headers to add, in order; {@code append=false} replaces existing values
 * @param remove lower-case names to remove
 */
public record HeaderMutations(List<HeaderValue> add, List<String> remove) {

  public static final HeaderMutations NONE = new HeaderMutations(List.of(), List.of());

  public HeaderMutations {
    add = List.copyOf(add);
    remove = List.copyOf(remove);
  }

  public boolean isEmpty() {
    return add.isEmpty() && remove.isEmpty();
  }

  /** One header to add; {@code name} is lower case. */
  public record HeaderValue(String name, String value, boolean append) {}
}
