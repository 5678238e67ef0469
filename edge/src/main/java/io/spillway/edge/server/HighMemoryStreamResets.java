package io.spillway.edge.server;

import io.spillway.edge.config.OverloadNames;
import io.spillway.edge.http.DownstreamEvents;
import io.spillway.edge.listener.Listener;
import io.spillway.edge.overload.ActionIndex;
import io.spillway.edge.overload.OverloadManager;
import io.spillway.edge.stats.Counter;
import java.util.Arrays;
import java.util.List;

/**
 * reset_high_memory_stream, as Envoy does it: on each change of the action's state s > 0, the top
 * {@code min(floor(s × 8) + 1, 8)} of the 8 power-of-two memory classes starting at
 * 2^{@code minimum_account_to_track_power_of_two} bytes are cleared — every HTTP/2 stream whose
 * buffered bytes reach the lowest cleared class is reset, at most 50 per worker per change.
 */
final class HighMemoryStreamResets {
  /** Envoy's per-worker cap on the streams one state change may reset. */
  private static final int MAX_RESETS_PER_WORKER = 50;
  /** Envoy's number of power-of-two memory classes. */
  private static final int MEMORY_CLASSES = 8;

  private HighMemoryStreamResets() {}

  /**
   * The smallest buffered size that gets a stream reset at action state {@code state}: the lowest of
   * the {@code min(floor(state × 8) + 1, 8)} top memory classes, class i holding
   * [2^(minPower+i), 2^(minPower+i+1)) and the last everything above.
   */
  static long resetThresholdBytes(double state, int minPower) {
    int classesToClear = Math.min((int) Math.floor(state * MEMORY_CLASSES) + 1, MEMORY_CLASSES);
    return 1L << Math.min(62, minPower + MEMORY_CLASSES - classesToClear);
  }

  /** Signals every listener's connections on each change of the (configured) action's state. */
  static void start(OverloadManager overload, int minPower, int workers, List<Listener> listeners, Counter resets) {
    ActionIndex reset = overload.actionHandle(OverloadNames.RESET_HIGH_MEMORY_STREAM);
    double[] last = {0};
    overload.addStateListener(state -> {
      double s = state.actionState(reset);
      if (s == last[0]) {
        return;
      }
      last[0] = s;
      if (s <= 0) {
        return;
      }
      int[] budget = new int[workers];
      Arrays.fill(budget, MAX_RESETS_PER_WORKER);
      var event = new DownstreamEvents.ResetHighMemory(resetThresholdBytes(s, minPower), budget, resets);
      listeners.forEach(l -> l.signalConnections(event));
    });
  }
}
