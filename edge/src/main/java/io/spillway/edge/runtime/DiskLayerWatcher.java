package io.spillway.edge.runtime;

import java.io.IOException;
import java.nio.file.ClosedWatchServiceException;
import java.nio.file.FileSystems;
import java.nio.file.Path;
import java.nio.file.StandardWatchEventKinds;
import java.nio.file.WatchEvent;
import java.nio.file.WatchKey;
import java.nio.file.WatchService;
import java.util.HashSet;
import java.util.Set;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Reloads the runtime's disk layers when the link their tree is read through is replaced, as
 * Envoy does: the deploy tool writes a new tree and swaps the link with a rename
 * ({@code ln -s new tmp && mv -T tmp current}). The watch is on the link's parent directory, on a
 * thread of its own; files edited in place below the link are not watched (Envoy does not either).
 */
public final class DiskLayerWatcher implements AutoCloseable {
  private static final Logger log = LoggerFactory.getLogger(DiskLayerWatcher.class);

  private final WatchService watch;
  private final Thread thread;

  private DiskLayerWatcher(WatchService watch, Set<Path> links, Runtime runtime) {
    this.watch = watch;
    this.thread = new Thread(() -> run(links, runtime), "spillway-runtime");
    thread.setDaemon(true);
  }

  /**
   * The watcher of {@code runtime}'s disk layers, or null when it has none or they cannot be
   * watched (logged: the layers are then read once, at start).
   */
  public static DiskLayerWatcher startIfNeeded(Runtime runtime) {
    if (runtime.diskDirectories().isEmpty()) {
      return null;
    }
    try {
      return start(runtime);
    } catch (IOException e) {
      log.warn("runtime disk layers will not reload: {}", e.getMessage());
      return null;
    }
  }

  /**
   * Starts watching the links of {@code runtime}'s disk layers.
   *
   * @throws IOException when a link's parent directory cannot be watched
   */
  public static DiskLayerWatcher start(Runtime runtime) throws IOException {
    Set<Path> links = new HashSet<>();
    for (var layer : runtime.config().layers()) {
      if (layer instanceof io.spillway.edge.config.RuntimeConfig.DiskLayer d) {
        links.add(Path.of(d.symlinkRoot()).toAbsolutePath().normalize());
      }
    }
    WatchService watch = FileSystems.getDefault().newWatchService();
    Set<Path> parents = new HashSet<>();
    for (Path link : links) {
      Path parent = link.getParent();
      if (parent != null && parents.add(parent) && parent.toFile().isDirectory()) {
        parent.register(watch, StandardWatchEventKinds.ENTRY_CREATE, StandardWatchEventKinds.ENTRY_MODIFY,
            StandardWatchEventKinds.ENTRY_DELETE);
      }
    }
    DiskLayerWatcher watcher = new DiskLayerWatcher(watch, links, runtime);
    watcher.thread.start();
    return watcher;
  }

  private void run(Set<Path> links, Runtime runtime) {
    try {
      while (true) {
        WatchKey key = watch.take();
        boolean swapped = false;
        Path dir = (Path) key.watchable();
        for (WatchEvent<?> event : key.pollEvents()) {
          if (event.context() instanceof Path name && links.contains(dir.resolve(name))) {
            swapped = true;
          }
        }
        key.reset();
        if (swapped) {
          runtime.reloadDiskLayers();
        }
      }
    } catch (InterruptedException | ClosedWatchServiceException e) {
      // closed
    } catch (RuntimeException e) {
      log.error("runtime disk layer watcher stopped", e);
    }
  }

  @Override
  public void close() {
    try {
      watch.close();
    } catch (IOException e) {
      log.debug("closing the runtime watch", e);
    }
    thread.interrupt();
  }
}
