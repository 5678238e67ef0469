package io.spillway.edge.filters.router;

import io.netty.handler.codec.http.HttpHeaders;
import io.spillway.edge.config.HeaderMutations;
import java.util.List;

/** Applies a route's merged header mutations (removals, then additions) to a message's headers. */
final class HeaderMutator {
  private HeaderMutator() {}

  static void apply(List<HeaderMutations> mutations, HttpHeaders headers) {
    for (int m = 0; m < mutations.size(); m++) {
      mutations.get(m).applyTo(headers);
    }
  }
}
