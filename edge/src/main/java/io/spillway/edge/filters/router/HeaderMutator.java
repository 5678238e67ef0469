package io.spillway.edge.filters.router;

import io.netty.handler.codec.http.HttpHeaders;
import io.spillway.edge.config.HeaderMutations;
import java.util.List;

/** Applies a route's merged header mutations (removals, then additions) to a message's headers. */
final class HeaderMutator {
  private HeaderMutator() {}

  static void apply(List<HeaderMutations> mutations, HttpHeaders headers) {
    for (int m = 0; m < mutations.size(); m++) {
      HeaderMutations hm = mutations.get(m);
      List<String> remove = hm.remove();
      for (int i = 0; i < remove.size(); i++) {
        headers.remove(remove.get(i));
      }
      List<HeaderMutations.HeaderValue> add = hm.add();
      for (int i = 0; i < add.size(); i++) {
        HeaderMutations.HeaderValue h = add.get(i);
        if (h.append()) {
          headers.add(h.name(), h.value());
        } else {
          headers.set(h.name(), h.value());
        }
      }
    }
  }
}
