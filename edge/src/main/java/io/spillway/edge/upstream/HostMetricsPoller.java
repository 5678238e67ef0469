package io.spillway.edge.upstream;

import io.spillway.edge.config.MetricsPollerConfig;
import io.spillway.edge.stats.Counter;
import io.spillway.edge.stats.Scope;
import io.spillway.edge.upstream.lb.OrcaLoadReport;
import java.util.HashMap;
import java.util.Map;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;
import java.util.random.RandomGenerator;

/**
 * The pressure policy's poller of each host's metrics endpoint: one session per host on the
 * health-check loop (never a worker), each polling every {@code interval} from a random start in
 * the first interval (hosts and edges do not poll in step), with at most two timers at a time (the
 * next poll, the running poll's timeout). A poll that answers 2xx with a readable body hands the
 * host a load report ({@link Host#pendingPolledReport}), which the control thread takes at its next
 * weight update as it takes the reports on responses; everything else — no connection, a reset, a
 * non-2xx status, the timeout, a body that gives no value — is counted and hands nothing, so the
 * host keeps its last data until it expires. A failed poll is never zero pressure.
 *
 * <p>Stats under {@code cluster.<name>.}: {@code lb_pressure_poll_success}, {@code
 * lb_pressure_poll_failure} (timeouts included), {@code lb_pressure_poll_timeout}, {@code
 * lb_pressure_poll_parse_error}, {@code lb_pressure_poll_malformed_lines}, {@code
 * lb_pressure_poll_metric_missing}.
 */
final class HostMetricsPoller {

  /** One GET of a host's metrics endpoint; its callbacks run on the poller's loop. */
  interface Fetcher {
    /** Starts a poll of {@code host}; exactly one callback follows unless {@link #abandon} comes first. */
    void fetch(Host host, Callback callback);

    /** The poll under way for {@code host} is given up (timed out) or the host left: drop its connection. */
    void abandon(Host host);
  }

  /** How one poll ended. */
  interface Callback {
    /** The endpoint answered with a status and (for 2xx) its body, decoded as UTF-8. */
    void answered(int status, String body);

    /** No answer: connect failure, reset, a body over the limit. */
    void failed();
  }

  /** The poller's stats, in the cluster's scope. */
  static final class Stats {
    final Counter success;
    final Counter failure;
    final Counter timeout;
    final Counter parseError;
    final Counter malformedLines;
    final Counter metricMissing;

    Stats(Scope cluster) {
      success = cluster.counter("lb_pressure_poll_success");
      failure = cluster.counter("lb_pressure_poll_failure");
      timeout = cluster.counter("lb_pressure_poll_timeout");
      parseError = cluster.counter("lb_pressure_poll_parse_error");
      malformedLines = cluster.counter("lb_pressure_poll_malformed_lines");
      metricMissing = cluster.counter("lb_pressure_poll_metric_missing");
    }
  }

  private final MetricsPollerConfig config;
  private final PolledLoad reader;
  private final Stats stats;
  private final ScheduledExecutorService loop;
  private final Fetcher fetcher;
  private final RandomGenerator random;
  /** Sessions by host; touched on the loop only. */
  private final Map<Host, Session> sessions = new HashMap<>();
  private boolean stopped;

  /**
   * @param loop the health-check loop (or a hand-driven one in tests); every method below runs there
   * @param random where each session's first poll falls within the first interval
   */
  HostMetricsPoller(MetricsPollerConfig config, Stats stats, ScheduledExecutorService loop, Fetcher fetcher,
      RandomGenerator random) {
    this.config = config;
    this.reader = new PolledLoad(config);
    this.stats = stats;
    this.loop = loop;
    this.fetcher = fetcher;
    this.random = random;
  }

  MetricsPollerConfig config() {
    return config;
  }

  /** The cluster's hosts changed (any thread): sessions start for new hosts and stop for gone ones. */
  void hostsChanged(HostSet set) {
    loop.execute(() -> reconcile(set));
  }

  /** Stops every session (the cluster was replaced or removed). */
  void stop() {
    loop.execute(() -> {
      stopped = true;
      sessions.values().forEach(Session::stop);
      sessions.clear();
    });
  }

  private void reconcile(HostSet set) {
    if (stopped) {
      return;
    }
    long interval = config.interval().toNanos();
    HostSessions.reconcile(sessions, set, Session::stop, h -> {
      Session s = new Session(h);
      s.next = loop.schedule(s::poll, random.nextLong(interval), TimeUnit.NANOSECONDS);
      return s;
    });
  }

  /** One host's polls; lives on the loop. */
  private final class Session {
    final Host host;
    ScheduledFuture<?> next;
    ScheduledFuture<?> timeout;
    /** The poll under way, 0 when none; answers to an earlier one are ignored. */
    long running;
    long sequence;
    boolean stopped;

    Session(Host host) {
      this.host = host;
    }

    void poll() {
      if (stopped) {
        return;
      }
      // Every interval from the first poll, whatever this one does: the timeout is below the
      // interval, so this poll has ended (answered, failed or timed out) before the next starts.
      next = loop.schedule(this::poll, config.interval().toNanos(), TimeUnit.NANOSECONDS);
      long id = ++sequence;
      running = id;
      timeout = loop.schedule(() -> timedOut(id), config.timeout().toNanos(), TimeUnit.NANOSECONDS);
      fetcher.fetch(host, new Callback() {
        @Override
        public void answered(int status, String body) {
          if (end(id)) {
            onAnswer(status, body);
          }
        }

        @Override
        public void failed() {
          if (end(id)) {
            stats.failure.inc();
          }
        }
      });
    }

    /** Whether poll {@code id} was the one under way (it is not any more). */
    private boolean end(long id) {
      if (stopped || running != id) {
        return false;
      }
      running = 0;
      if (timeout != null) {
        timeout.cancel(false);
        timeout = null;
      }
      return true;
    }

    private void timedOut(long id) {
      if (stopped || running != id) {
        return;
      }
      running = 0;
      timeout = null;
      stats.failure.inc();
      stats.timeout.inc();
      fetcher.abandon(host);
    }

    private void onAnswer(int status, String body) {
      if (status < 200 || status > 299) {
        stats.failure.inc();
        return;
      }
      PolledLoad.Result r = reader.read(body);
      stats.malformedLines.add(r.malformedLines());
      stats.metricMissing.add(r.missing());
      OrcaLoadReport report = r.report();
      if (report == null) {
        stats.parseError.inc();
        return;
      }
      stats.success.inc();
      host.pendingPolledReport.lazySet(report);
    }

    void stop() {
      stopped = true;
      if (next != null) {
        next.cancel(false);
      }
      if (timeout != null) {
        timeout.cancel(false);
      }
      if (running != 0) {
        running = 0;
      }
      fetcher.abandon(host);
    }
  }
}
