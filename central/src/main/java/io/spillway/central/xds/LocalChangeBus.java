package io.spillway.central.xds;

import java.util.List;
import java.util.Objects;
import java.util.concurrent.CopyOnWriteArrayList;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/** The in-process bus: publishing calls every listener on the caller's thread. */
public class LocalChangeBus implements ChangeBus {

  private static final Logger log = LoggerFactory.getLogger(LocalChangeBus.class);

  private final List<Listener> listeners = new CopyOnWriteArrayList<>();
  private volatile boolean closed;

  @Override
  public void publish(String edgeId) {
    deliver(Objects.requireNonNull(edgeId, "edgeId"));
  }

  @Override
  public void publishAll() {
    deliver(null);
  }

  /** Hands a change to every listener of this process. */
  protected final void deliver(String edgeId) {
    if (closed) {
      return;
    }
    for (Listener listener : listeners) {
      try {
        listener.changed(edgeId);
      } catch (RuntimeException e) {
        log.error("a change listener failed", e);
      }
    }
  }

  @Override
  public void subscribe(Listener listener) {
    listeners.add(Objects.requireNonNull(listener, "listener"));
  }

  @Override
  public void close() {
    closed = true;
  }
}
