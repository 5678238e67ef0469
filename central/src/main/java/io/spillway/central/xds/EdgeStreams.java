package io.spillway.central.xds;

import io.spillway.central.edges.EdgeStore;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import java.util.function.Function;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The open streams of this central, by edge, and the pushes to them. A change for an edge (from
 * the {@link ChangeBus} or the re-sync timer) queues one push task for that edge; changes arriving
 * while it is queued ride along with it (bursts coalesce, and nothing waits for a timer). The task
 * reads the committed state once for the edge and offers it to each of its streams, which send
 * what differs. Status writes to the database go through one background thread so a slow database
 * never delays a push.
 */
final class EdgeStreams {

  private static final Logger log = LoggerFactory.getLogger(EdgeStreams.class);

  /** One edge's streams on this central, its current snapshot and the versions it refused. */
  static final class Session {
    final String edgeId;
    final Set<AdsStream> streams = ConcurrentHashMap.newKeySet();
    /** Type → the version this edge NACKed: not sent to it again until a newer version exists. */
    final Map<XdsType, String> nacked = new ConcurrentHashMap<>();
    volatile EdgeSnapshot snapshot;

    Session(String edgeId) {
      this.edgeId = edgeId;
    }
  }

  private final Function<String, EdgeSnapshot> loader;
  private final EdgeStore edges;
  private final ExecutorService pushers;
  private final ExecutorService statusWriter;
  private final Map<String, Session> sessions = new ConcurrentHashMap<>();
  /** Edges with a push queued, and when the oldest change among them was published (nanoTime). */
  private final Map<String, Long> queued = new ConcurrentHashMap<>();
  private final java.util.concurrent.atomic.AtomicLong sequence = new java.util.concurrent.atomic.AtomicLong();

  EdgeStreams(Function<String, EdgeSnapshot> loader, EdgeStore edges, ExecutorService pushers, ExecutorService statusWriter) {
    this.loader = Objects.requireNonNull(loader, "loader");
    this.edges = Objects.requireNonNull(edges, "edges");
    this.pushers = Objects.requireNonNull(pushers, "pushers");
    this.statusWriter = Objects.requireNonNull(statusWriter, "statusWriter");
  }

  EdgeStore edges() {
    return edges;
  }

  /** How many edges have a stream here. */
  int connectedEdges() {
    return sessions.size();
  }

  /** Adds an authenticated stream; the edge's snapshot is loaded if this is its first. */
  Session attach(AdsStream stream, String edgeId) {
    Session session = sessions.compute(edgeId, (id, existing) -> {
      Session s = existing != null ? existing : new Session(id);
      s.streams.add(stream);
      return s;
    });
    synchronized (session) {
      if (session.snapshot == null) {
        session.snapshot = load(edgeId);
      }
    }
    return session;
  }

  private EdgeSnapshot load(String edgeId) {
    EdgeSnapshot snapshot = loader.apply(edgeId);
    snapshot.sequence = sequence.incrementAndGet();
    return snapshot;
  }

  /** Removes a stream that ended. */
  void detach(AdsStream stream, Session session) {
    session.streams.remove(stream);
    sessions.computeIfPresent(session.edgeId, (id, s) -> s.streams.isEmpty() ? null : s);
  }

  /** A committed change: queues a push for the edge (null: every connected edge). */
  void changed(String edgeId) {
    if (edgeId == null) {
      for (String id : sessions.keySet()) {
        changed(id);
      }
      return;
    }
    if (!sessions.containsKey(edgeId)) {
      return;
    }
    if (queued.putIfAbsent(edgeId, System.nanoTime()) == null) {
      try {
        pushers.execute(() -> push(edgeId));
      } catch (RejectedExecutionException e) {
        queued.remove(edgeId);
      }
    }
  }

  private void push(String edgeId) {
    Long since = queued.remove(edgeId);
    Session session = sessions.get(edgeId);
    if (session == null || since == null) {
      return;
    }
    try {
      EdgeSnapshot snapshot;
      synchronized (session) {
        snapshot = load(edgeId);
        session.snapshot = snapshot;
      }
      // Offered outside the session's lock (a stream joining holds its own lock, then the session's);
      // a stream ignores a snapshot older than the one it has.
      for (AdsStream stream : session.streams) {
        stream.offer(snapshot, since);
      }
      // A stream whose credential was replaced, or whose edge was deregistered, ends here (at the
      // latest on the next re-sync).
      for (AdsStream stream : session.streams) {
        if (!edges.credentialMatches(edgeId, stream.credentialHash)) {
          stream.revoke("the credential of edge " + edgeId + " was replaced or the edge deregistered");
        }
      }
    } catch (RuntimeException e) {
      log.error("xDS: pushing to edge {} failed", edgeId, e);
    }
  }

  /** Runs a status write in the background, in order. */
  void writeStatus(Runnable write) {
    try {
      statusWriter.execute(() -> {
        try {
          write.run();
        } catch (RuntimeException e) {
          log.warn("xDS: could not record edge status: {}", e.getMessage());
        }
      });
    } catch (RejectedExecutionException e) {
      log.debug("xDS: status write after close dropped");
    }
  }

  /** Ends every stream (central is stopping) and waits briefly for queued status writes. */
  void close() {
    for (Session session : sessions.values()) {
      for (AdsStream stream : session.streams) {
        stream.serverClosing();
      }
    }
    pushers.shutdownNow();
    statusWriter.shutdown();
    try {
      statusWriter.awaitTermination(2, TimeUnit.SECONDS);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }

  static ThreadPoolExecutor pool(int threads, String name) {
    ThreadPoolExecutor pool = new ThreadPoolExecutor(threads, threads, 60, TimeUnit.SECONDS,
        new java.util.concurrent.LinkedBlockingQueue<>(), r -> {
          Thread thread = new Thread(r, name);
          thread.setDaemon(true);
          return thread;
        });
    pool.allowCoreThreadTimeOut(true);
    return pool;
  }
}
