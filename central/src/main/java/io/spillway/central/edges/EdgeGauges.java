package io.spillway.central.edges;

import java.time.Clock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;

/**
 * The edges' reported protection gauges, in memory, for the console's charts: per edge a window of
 * the last {@value #POINTS} reports (15 minutes at the default 5 s interval), for at most
 * {@value #MAX_EDGES} edges, with at most {@value #MAX_PEERS} peers per report (the first by name).
 * Nothing is stored in the database: after a restart the charts start empty.
 *
 * <p><b>Refusals</b> arrive as cumulative counters; a point holds the increase since the edge's
 * previous report. The first report of an edge (or the first after this central started) is the
 * baseline and shows zero; when the edge restarted (another start time) or a counter went down, the
 * counter starts again from zero, so the point shows its value. A point is never negative.
 *
 * <p><b>Forgetting.</b> A deregistered edge is forgotten at once ({@link #forget}); an edge silent
 * for more than {@link #SILENT} is forgotten when its series is read, and by the sweep that runs at
 * most once a minute as reports arrive. When {@value #MAX_EDGES} edges are held (after a sweep), a
 * new edge's reports are dropped until one is forgotten.
 *
 * <p><b>Memory</b> (computed from the layout, 64-bit JVM with compressed references): a point is
 * a 56-byte object, plus 40 bytes of refusal deltas when any is non-zero, plus per peer 9 bytes
 * (two ints and a byte) over three arrays with 16-byte headers, the peer names shared with the
 * previous point while they do not change. With 16 peers and refusals that is 288 bytes a point,
 * about 52 KB an edge for 180 points and about 52 MB for 1000 such edges; an edge with 2 peers
 * takes about 30 KB. (A heap measurement after a full collection agrees: 49.5 KiB and 28.4 KiB.)
 *
 * <p><b>Threads.</b> Reports come from gRPC threads, reads from HTTP threads: the edges are a
 * concurrent map, and each edge's window has its own lock, held only to append or copy a point
 * reference array.
 */
public final class EdgeGauges {

  /** Points kept per edge: 15 minutes at 5 s. */
  public static final int POINTS = 180;
  /** Edges held at most. */
  public static final int MAX_EDGES = 1000;
  /** Peers kept per point at most. */
  public static final int MAX_PEERS = 16;
  /** An edge not heard from for longer is forgotten. */
  public static final Duration SILENT = Duration.ofMinutes(15);
  /** The admission tiers that are counted, in the order of {@link Point#refused}'s halves. */
  public static final List<String> TIERS = List.of("start", "continuation", "proxy");
  /** The admission modes, as reported. */
  public static final List<String> MODES = List.of("off", "shadow", "enforce");
  /** The breaker states, by {@link Point#peerBreaker} code. */
  public static final List<String> BREAKER_STATES = List.of("closed", "open", "half_open");

  private static final long SWEEP_EVERY_MS = Duration.ofMinutes(1).toMillis();
  private static final int[] NO_REFUSALS = new int[2 * TIERS.size()];
  private static final String[] NO_NAMES = new String[0];
  private static final int[] NO_INTS = new int[0];
  private static final byte[] NO_BYTES = new byte[0];

  /** One peer's outbound guard in a report. */
  public record PeerSample(String name, int inFlight, int waiting, String breaker) {}

  /**
   * One report as central reads it.
   *
   * @param timeMs when the edge read the gauges (edge clock)
   * @param intervalMs the edge's report interval
   * @param startedAtMs when the edge process started
   * @param mode the inbound admission mode (off, shadow, enforce)
   * @param enforce cumulative enforce refusals per tier name
   * @param shadow cumulative shadow (would-refuse) counts per tier name
   */
  public record Sample(long timeMs, int intervalMs, long startedAtMs, String mode, int limit, int inFlight, int lagMs,
      Map<String, Long> enforce, Map<String, Long> shadow, List<PeerSample> peers) {}

  /**
   * One point of the window. {@code refused} holds the per-interval enforce deltas of
   * {@link #TIERS}, then the shadow ones; the peer arrays are parallel to {@code peerNames}.
   */
  public record Point(long timeMs, int limit, int inFlight, int lagMs, byte mode, int[] refused, String[] peerNames,
      int[] peerInFlight, int[] peerWaiting, byte[] peerBreaker) {

    /** The enforce ({@code shadow == false}) or shadow delta of tier {@code t} (an index of {@link #TIERS}). */
    public int refused(boolean shadow, int t) {
      return refused[(shadow ? TIERS.size() : 0) + t];
    }
  }

  /** An edge's window, oldest point first. */
  public record Series(int intervalMs, List<Point> points) {}

  private final Clock clock;
  private final Map<String, Window> edges = new ConcurrentHashMap<>();
  private final AtomicInteger held = new AtomicInteger();
  private final AtomicLong lastSweep = new AtomicLong(Long.MIN_VALUE / 2);

  /** @param clock central's clock: when an edge was last heard from */
  public EdgeGauges(Clock clock) {
    this.clock = Objects.requireNonNull(clock, "clock");
  }

  /**
   * Adds a report of an authenticated edge.
   *
   * @return false when it was dropped because {@value #MAX_EDGES} other edges are held
   */
  public boolean record(String edgeId, Sample sample) {
    long now = clock.millis();
    if (now - lastSweep.get() >= SWEEP_EVERY_MS) {
      lastSweep.set(now);
      sweep(now);
    }
    Window window = edges.get(edgeId);
    if (window == null) {
      if (held.incrementAndGet() > MAX_EDGES) {
        held.decrementAndGet();
        sweep(now);
        if (held.incrementAndGet() > MAX_EDGES) {
          held.decrementAndGet();
          return false;
        }
      }
      Window fresh = new Window();
      window = edges.putIfAbsent(edgeId, fresh);
      if (window == null) {
        window = fresh;
      } else {
        held.decrementAndGet();
      }
    }
    window.append(sample, now);
    return true;
  }

  /** The edge's window, or empty when nothing was heard from it in the last {@link #SILENT}. */
  public Optional<Series> series(String edgeId) {
    Window window = edges.get(edgeId);
    if (window == null) {
      return Optional.empty();
    }
    if (silent(window, clock.millis())) {
      remove(edgeId, window);
      return Optional.empty();
    }
    return Optional.of(window.series());
  }

  /** Forgets an edge (deregistered). */
  public void forget(String edgeId) {
    Window window = edges.get(edgeId);
    if (window != null) {
      remove(edgeId, window);
    }
  }

  /** The number of edges held. */
  public int edgeCount() {
    return held.get();
  }

  private void sweep(long now) {
    edges.forEach((id, window) -> {
      if (silent(window, now)) {
        remove(id, window);
      }
    });
  }

  private static boolean silent(Window window, long now) {
    return now - window.lastSeenMs() > SILENT.toMillis();
  }

  private void remove(String edgeId, Window window) {
    if (edges.remove(edgeId, window)) {
      held.decrementAndGet();
    }
  }

  /** One edge's ring of points and what the next delta is computed from. */
  private static final class Window {
    private final Point[] ring = new Point[POINTS];
    private int next;
    private int size;
    private volatile long lastSeenMs;
    private int intervalMs;
    private long startedAtMs;
    /** The previous cumulative counters, enforce then shadow per tier; null before the first report. */
    private long[] counters;
    private String[] peerNames = NO_NAMES;

    long lastSeenMs() {
      return lastSeenMs;
    }

    synchronized void append(Sample s, long now) {
      lastSeenMs = now;
      intervalMs = s.intervalMs();
      long[] current = new long[2 * TIERS.size()];
      for (int t = 0; t < TIERS.size(); t++) {
        current[t] = Math.max(0, s.enforce().getOrDefault(TIERS.get(t), 0L));
        current[TIERS.size() + t] = Math.max(0, s.shadow().getOrDefault(TIERS.get(t), 0L));
      }
      boolean restarted = counters != null && s.startedAtMs() != startedAtMs;
      int[] refused = NO_REFUSALS;
      if (counters != null) {
        for (int i = 0; i < current.length; i++) {
          long delta = restarted || current[i] < counters[i] ? current[i] : current[i] - counters[i];
          if (delta != 0) {
            if (refused == NO_REFUSALS) {
              refused = new int[current.length];
            }
            refused[i] = (int) Math.min(Integer.MAX_VALUE, delta);
          }
        }
      }
      counters = current;
      startedAtMs = s.startedAtMs();
      ring[next] = point(s, refused);
      next = (next + 1) % POINTS;
      size = Math.min(POINTS, size + 1);
    }

    private Point point(Sample s, int[] refused) {
      List<PeerSample> peers = new ArrayList<>(s.peers());
      peers.sort((a, b) -> a.name().compareTo(b.name()));
      int n = Math.min(MAX_PEERS, peers.size());
      String[] names = new String[n];
      int[] inFlight = n == 0 ? NO_INTS : new int[n];
      int[] waiting = n == 0 ? NO_INTS : new int[n];
      byte[] breaker = n == 0 ? NO_BYTES : new byte[n];
      for (int i = 0; i < n; i++) {
        PeerSample p = peers.get(i);
        names[i] = p.name();
        inFlight[i] = Math.max(0, p.inFlight());
        waiting[i] = Math.max(0, p.waiting());
        breaker[i] = (byte) Math.max(0, BREAKER_STATES.indexOf(p.breaker()));
      }
      if (Arrays.equals(names, peerNames)) {
        names = peerNames; // shared with the previous point
      } else {
        peerNames = names;
      }
      return new Point(s.timeMs(), Math.max(0, s.limit()), Math.max(0, s.inFlight()), Math.max(0, s.lagMs()),
          (byte) Math.max(0, MODES.indexOf(s.mode())), refused, names, inFlight, waiting, breaker);
    }

    synchronized Series series() {
      Point[] points = new Point[size];
      int first = (next - size + POINTS) % POINTS;
      for (int i = 0; i < size; i++) {
        points[i] = ring[(first + i) % POINTS];
      }
      return new Series(intervalMs, List.of(points));
    }
  }
}
