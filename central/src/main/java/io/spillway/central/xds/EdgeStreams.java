package io.spillway.central.xds;

import io.spillway.central.edges.EdgeStore;
import java.util.ArrayList;
import java.util.Collection;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
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

  /** Reads what edges are served now; both methods must be safe to call from several threads. */
  interface Loader {
    /** One edge. */
    EdgeSnapshot load(String edgeId);

    /** Several edges at once (a change that reaches the fleet); every id is in the answer. */
    Map<String, EdgeSnapshot> load(Collection<String> edgeIds);
  }

  private final Loader loader;
  private final EdgeStore edges;
  private final ExecutorService pushers;
  private final int parallelism;
  private final ExecutorService statusWriter;
  private final Map<String, Session> sessions = new ConcurrentHashMap<>();
  /** Edges with a push queued, and when the oldest change among them was published (nanoTime). */
  private final Map<String, Long> queued = new ConcurrentHashMap<>();
  /**
   * Orders an edge's snapshots. A push takes its number when it leaves the queue, before it reads:
   * a later number was dequeued later, so it read every change published before it was queued.
   */
  private final AtomicLong sequence = new AtomicLong();
  /** ACKed versions not written yet, by edge (the latest of each), and whether a flush is queued. */
  private final Map<String, Map<String, String>> pendingAcks = new ConcurrentHashMap<>();
  private final AtomicBoolean ackFlushQueued = new AtomicBoolean();

  /**
   * @param pushers the push threads
   * @param parallelism how many of them one fleet-wide push spreads its writes over
   */
  EdgeStreams(Loader loader, EdgeStore edges, ExecutorService pushers, int parallelism, ExecutorService statusWriter) {
    this.loader = Objects.requireNonNull(loader, "loader");
    this.edges = Objects.requireNonNull(edges, "edges");
    this.pushers = Objects.requireNonNull(pushers, "pushers");
    this.parallelism = Math.max(1, parallelism);
    this.statusWriter = Objects.requireNonNull(statusWriter, "statusWriter");
  }

  EdgeStore edges() {
    return edges;
  }

  /** How many edges have a stream here. */
  int connectedEdges() {
    return sessions.size();
  }

  /**
   * Adds an authenticated stream; the edge's snapshot is loaded if this is its first.
   *
   * @param refused the versions the edge refused, by type URL, as the registry recorded them (on
   *     any replica): a session that starts here does not send them either
   */
  Session attach(AdsStream stream, String edgeId, Map<String, String> refused) {
    Session session = sessions.compute(edgeId, (id, existing) -> {
      Session s = existing != null ? existing : started(id, refused);
      s.streams.add(stream);
      return s;
    });
    synchronized (session) {
      if (session.snapshot == null) {
        long number = sequence.incrementAndGet();
        EdgeSnapshot snapshot = loader.load(edgeId);
        snapshot.sequence = number;
        session.snapshot = snapshot;
      }
    }
    return session;
  }

  /** A new session, remembering the versions the edge refused. */
  private static Session started(String edgeId, Map<String, String> refused) {
    Session session = new Session(edgeId);
    refused.forEach((typeUrl, version) -> {
      XdsType type = XdsType.ofUrl(typeUrl);
      if (type != null) {
        session.nacked.put(type, version);
      }
    });
    return session;
  }

  /** Removes a stream that ended. */
  void detach(AdsStream stream, Session session) {
    session.streams.remove(stream);
    sessions.computeIfPresent(session.edgeId, (id, s) -> s.streams.isEmpty() ? null : s);
  }

  /** A committed change: queues a push for the edge (null: every connected edge). */
  void changed(String edgeId) {
    if (edgeId == null) {
      changedAll();
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

  /**
   * A change every edge may use: one task reads all connected edges in one go (each row once),
   * then spreads the writes over the push threads. Edges with a push already queued keep it.
   */
  private void changedAll() {
    long now = System.nanoTime();
    List<String> ids = new ArrayList<>();
    for (String id : sessions.keySet()) {
      if (queued.putIfAbsent(id, now) == null) {
        ids.add(id);
      }
    }
    if (ids.isEmpty()) {
      return;
    }
    try {
      pushers.execute(() -> pushAll(ids));
    } catch (RejectedExecutionException e) {
      ids.forEach(queued::remove);
    }
  }

  private void push(String edgeId) {
    Long since = queued.remove(edgeId);
    long number = sequence.incrementAndGet();
    Session session = sessions.get(edgeId);
    if (session == null || since == null) {
      return;
    }
    try {
      EdgeSnapshot snapshot = loader.load(edgeId);
      snapshot.sequence = number;
      offer(session, snapshot, since);
    } catch (RuntimeException e) {
      log.error("xDS: pushing to edge {} failed", edgeId, e);
    }
  }

  private void pushAll(List<String> ids) {
    Map<String, Long> since = new HashMap<>();
    for (String id : ids) {
      Long published = queued.remove(id);
      if (published != null && sessions.containsKey(id)) {
        since.put(id, published);
      }
    }
    if (since.isEmpty()) {
      return;
    }
    long number = sequence.incrementAndGet();
    Map<String, EdgeSnapshot> snapshots;
    try {
      snapshots = loader.load(since.keySet());
    } catch (RuntimeException e) {
      log.error("xDS: reading {} edges for a push failed", since.size(), e);
      return;
    }
    List<String> order = new ArrayList<>(snapshots.keySet());
    int slices = Math.min(parallelism, Math.max(1, order.size() / MIN_EDGES_PER_SLICE));
    for (int slice = 1; slice < slices; slice++) {
      int from = slice;
      try {
        pushers.execute(() -> offerSlice(order, from, slices, snapshots, since, number));
      } catch (RejectedExecutionException e) {
        return; // closing
      }
    }
    offerSlice(order, 0, slices, snapshots, since, number);
  }

  /** Fewer edges than this per push thread are not worth a hand-over. */
  private static final int MIN_EDGES_PER_SLICE = 8;

  private void offerSlice(List<String> order, int from, int step, Map<String, EdgeSnapshot> snapshots,
      Map<String, Long> since, long number) {
    for (int i = from; i < order.size(); i += step) {
      String edgeId = order.get(i);
      Session session = sessions.get(edgeId);
      if (session == null) {
        continue;
      }
      try {
        EdgeSnapshot snapshot = snapshots.get(edgeId);
        snapshot.sequence = number;
        offer(session, snapshot, since.get(edgeId));
      } catch (RuntimeException e) {
        log.error("xDS: pushing to edge {} failed", edgeId, e);
      }
    }
  }

  /**
   * Makes the snapshot the session's (unless a newer one got there first) and offers it to each
   * stream; a stream ignores a snapshot older than the one it has. A stream whose credential was
   * replaced, or whose edge was deregistered, ends here instead (at the latest on the next re-sync).
   */
  private void offer(Session session, EdgeSnapshot snapshot, long since) {
    synchronized (session) {
      if (session.snapshot == null || session.snapshot.sequence < snapshot.sequence) {
        session.snapshot = snapshot;
      }
    }
    // Offered outside the session's lock (a stream joining holds its own lock, then the session's).
    for (AdsStream stream : session.streams) {
      if (snapshot.admits(stream.credentialHash)) {
        stream.offer(snapshot, since);
      } else {
        stream.revoke("the credential of edge " + session.edgeId + " was replaced or the edge deregistered");
      }
    }
  }

  /**
   * Records the versions an edge ACKed, in the background. ACKs that arrive while a write is
   * pending join it: the latest map of each edge is written, all edges in one transaction (a push
   * to the fleet comes back as a burst of ACKs).
   */
  void recordAcked(String edgeId, Map<String, String> acked) {
    pendingAcks.put(edgeId, acked);
    if (ackFlushQueued.compareAndSet(false, true)) {
      writeStatus(this::flushAcks);
    }
  }

  private void flushAcks() {
    ackFlushQueued.set(false); // ACKs from now on queue another flush
    Map<String, Map<String, String>> batch = new java.util.LinkedHashMap<>();
    for (String edgeId : pendingAcks.keySet()) {
      Map<String, String> acked = pendingAcks.remove(edgeId);
      if (acked != null) {
        batch.put(edgeId, acked);
      }
    }
    edges.recordAcked(batch);
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
