package io.spillway.edge.server;

import io.netty.buffer.PooledByteBufAllocator;
import io.netty.channel.EventLoopGroup;
import io.netty.util.concurrent.EventExecutor;
import io.spillway.edge.config.OverloadConfig;
import io.spillway.edge.config.OverloadNames;
import io.spillway.edge.http.DownstreamEvents;
import io.spillway.edge.listener.Listener;
import io.spillway.edge.overload.ActionIndex;
import io.spillway.edge.overload.OverloadManager;
import io.spillway.edge.stats.Scope;
import java.util.List;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;

/**
 * The overload manager's actions that act on the server's listeners and buffers (Envoy's
 * {@code stop_accepting_connections}, {@code close_idle_http_connections}, {@code reduce_timeouts},
 * {@code reset_high_memory_stream}, {@code shrink_heap}): each configured one becomes a state
 * listener or a control-thread timer; an action the configuration does not name costs nothing.
 */
final class OverloadActions {

  private OverloadActions() {}

  /**
   * Subscribes the configured listener actions to the overload state. {@code listeners} is the
   * server's live list (listeners added later by LDS are seen).
   *
   * @return the stop-accepting action when configured (a listener bound while it is saturated
   *     starts paused), else null
   */
  static ActionIndex wire(OverloadManager overload, OverloadConfig config, List<Listener> listeners, int workers,
      Scope root) {
    ActionIndex stopAccepting = overload.actionHandle(OverloadNames.STOP_ACCEPTING_CONNECTIONS);
    if (stopAccepting.isConfigured()) {
      overload.addStateListener(state -> {
        boolean paused = state.isSaturated(stopAccepting);
        listeners.forEach(l -> l.pauseAccepting(paused));
      });
    }
    ActionIndex closeIdle = overload.actionHandle(OverloadNames.CLOSE_IDLE_HTTP_CONNECTIONS);
    if (closeIdle.isConfigured()) {
      // Idle connections go first: at state s, those idle for at least (1 - s) of the connection
      // manager's idle timeout; saturated, every idle connection.
      overload.addStateListener(state -> {
        double s = state.actionState(closeIdle);
        if (s <= 0) {
          return;
        }
        for (Listener l : listeners) {
          if (l.hcm() == null) {
            continue; // TCP proxy chains only
          }
          long idle = l.hcm().config().idleTimeout().toNanos();
          long threshold = s >= 1 || idle <= 0 ? 0 : (long) (idle * (1 - s));
          l.signalConnections(new DownstreamEvents.CloseIdle(threshold));
        }
      });
    }
    ActionIndex reduceTimeouts = overload.actionHandle(OverloadNames.REDUCE_TIMEOUTS);
    if (reduceTimeouts.isConfigured()) {
      // Running scaled timers follow the action: each change of its state re-times them.
      double[] last = {0};
      overload.addStateListener(state -> {
        double s = state.actionState(reduceTimeouts);
        if (s != last[0]) {
          last[0] = s;
          listeners.forEach(l -> l.signalConnections(DownstreamEvents.RescaleTimers.INSTANCE));
        }
      });
    }
    if (overload.actionHandle(OverloadNames.RESET_HIGH_MEMORY_STREAM).isConfigured()) {
      HighMemoryStreamResets.start(overload, config.minimumAccountToTrackPowerOfTwo().orElseThrow(), workers,
          listeners, root.scope("overload").scope(OverloadNames.RESET_HIGH_MEMORY_STREAM).counter("count"));
    }
    return stopAccepting.isConfigured() ? stopAccepting : null;
  }

  /**
   * {@code shrink_heap}: while active, every {@code timer_interval} the control thread asks each
   * worker to trim its allocator cache when more than {@code max_unfreed_memory_bytes} sit unused
   * in the pool.
   */
  static void startShrinkHeap(OverloadManager overload, OverloadConfig config, EventLoopGroup workerGroup,
      ScheduledExecutorService control, Scope stats) {
    ActionIndex shrink = overload.actionHandle(OverloadNames.SHRINK_HEAP);
    if (!shrink.isConfigured()) {
      return;
    }
    OverloadConfig.ShrinkHeap settings = config.actions().stream()
        .filter(a -> a.name().equals(OverloadNames.SHRINK_HEAP))
        .map(a -> a.settings().orElse(null))
        .filter(OverloadConfig.ShrinkHeap.class::isInstance)
        .map(OverloadConfig.ShrinkHeap.class::cast)
        .findFirst().orElse(OverloadConfig.ShrinkHeap.DEFAULTS);
    var shrinkCount = stats.counter("shrink_count");
    PooledByteBufAllocator alloc = PooledByteBufAllocator.DEFAULT;
    long every = Math.max(1, settings.timerInterval().toMillis());
    control.scheduleWithFixedDelay(() -> {
      if (!overload.state().isActive(shrink)) {
        return;
      }
      var m = alloc.metric();
      long unfreed = m.usedDirectMemory() + m.usedHeapMemory() - alloc.pinnedDirectMemory() - alloc.pinnedHeapMemory();
      if (unfreed > settings.maxUnfreedMemoryBytes()) {
        for (EventExecutor e : workerGroup) {
          e.execute(alloc::trimCurrentThreadCache);
        }
        shrinkCount.inc();
      }
    }, every, every, TimeUnit.MILLISECONDS);
  }
}
