package io.spillway.edge.config;

import io.netty.handler.codec.http.HttpHeaders;
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

  /** Applies these to {@code headers}: removals first, then additions, as Envoy's header parser does. */
  public void applyTo(HttpHeaders headers) {
    for (int i = 0; i < remove.size(); i++) {
      headers.remove(remove.get(i));
    }
    for (int i = 0; i < add.size(); i++) {
      HeaderValue h = add.get(i);
      if (h.append()) {
        headers.add(h.name(), h.value());
      } else {
        headers.set(h.name(), h.value());
      }
    }
  }

  /** One header to add; {@code name} is lower case. */
  public record HeaderValue(String name, String value, boolean append) {}
}
