package io.spillway.edge.upstream;

import java.util.HashSet;
import java.util.Map;
import java.util.Set;
import java.util.function.Consumer;
import java.util.function.Function;

/**
 * Per-host sessions (active health checks, metrics polls) kept in step with a cluster's host set,
 * on the loop that owns them: hosts that left have their session stopped and dropped, hosts that
 * joined get one started.
 */
final class HostSessions {

  private HostSessions() {}

  static <S> void reconcile(Map<Host, S> sessions, HostSet set, Consumer<S> stop, Function<Host, S> start) {
    Set<Host> current = new HashSet<>(set.hosts());
    sessions.entrySet().removeIf(e -> {
      if (!current.contains(e.getKey())) {
        stop.accept(e.getValue());
        return true;
      }
      return false;
    });
    for (Host h : set.hosts()) {
      if (!sessions.containsKey(h)) {
        sessions.put(h, start.apply(h));
      }
    }
  }
}
