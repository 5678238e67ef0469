package io.spillway.edge.upstream;

import io.netty.bootstrap.Bootstrap;
import io.netty.channel.Channel;
import io.netty.channel.ChannelFuture;
import io.netty.channel.ChannelInitializer;
import io.netty.channel.ChannelOption;
import io.netty.util.concurrent.ScheduledFuture;
import io.spillway.edge.config.HostHealthConfig;
import io.spillway.edge.stats.Counter;
import io.spillway.edge.stats.Gauge;
import io.spillway.edge.stats.Scope;
import java.util.HashMap;
import java.util.Map;
import java.util.concurrent.Executor;
import java.util.concurrent.TimeUnit;
import java.util.random.RandomGenerator;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A cluster's active health checker (Envoy's {@code HealthCheckerImplBase}): one session per host,
 * each on the health-check loop with its own connection (kept between checks with
 * {@code reuse_connection}), never on a worker. A session that changes whether its host is healthy
 * sets the host's {@link Host#FAILED_ACTIVE_HC} flag and asks the control thread to publish the
 * cluster's new {@link Cluster.Routing}; workers only ever read that snapshot.
 *
 * <p>Stats under {@code cluster.<name>.health_check.}: {@code attempt}, {@code success},
 * {@code failure} (every failed check, network ones included), {@code network_failure} (connect
 * failures, resets, timeouts), {@code passive_failure} ({@code x-envoy-immediate-health-check-fail}
 * on routed responses), {@code verify_cluster} (Envoy's service-name check; not supported, stays 0)
 * and the {@code healthy} and {@code degraded} gauges.
 *
 * <p>As in Envoy, only HTTP checks mark a host degraded: a passed check whose response carries
 * {@code x-envoy-degraded} sets {@link Host#DEGRADED_ACTIVE_HC}, a passed check without it clears
 * the flag; a failed check leaves it (the host is unhealthy, which wins).
 */
final class HealthChecker {
  private static final Logger log = LoggerFactory.getLogger(HealthChecker.class);

  private final Cluster cluster;
  private final HostHealthConfig.HealthCheck config;
  private final HealthCheckLoop loop;
  private final Executor control;
  private final RandomGenerator random;
  private final HealthProbe probe;
  final Counter attempt;
  final Counter success;
  final Counter failure;
  final Counter networkFailure;
  final Counter passiveFailure;
  final Counter verifyCluster;
  final Gauge healthy;
  /** Hosts whose last passed check carried {@code x-envoy-degraded} ({@code degraded_active_hc}). */
  final Gauge degraded;
  /** Sessions by host; touched on the health-check loop only. */
  private final Map<Host, Session> sessions = new HashMap<>();
  private boolean stopped;

  HealthChecker(Cluster cluster, HostHealthConfig.HealthCheck config, Scope scope, HealthCheckLoop loop,
      Executor control, RandomGenerator random) {
    this.cluster = cluster;
    this.config = config;
    this.loop = loop;
    this.control = control;
    this.random = random;
    this.probe = HealthProbe.of(config.probe());
    attempt = scope.counter("attempt");
    success = scope.counter("success");
    failure = scope.counter("failure");
    networkFailure = scope.counter("network_failure");
    passiveFailure = scope.counter("passive_failure");
    verifyCluster = scope.counter("verify_cluster");
    healthy = scope.gauge("healthy");
    degraded = scope.gauge("degraded");
  }

  /** The cluster's hosts changed (any thread): sessions start for new hosts and stop for gone ones. */
  void hostsChanged(HostSet set) {
    loop.loop().execute(() -> reconcile(set));
  }

  /** Stops every session and closes their connections (the cluster was replaced or removed). */
  void stop() {
    loop.loop().execute(() -> {
      stopped = true;
      sessions.values().forEach(Session::stop);
      sessions.clear();
    });
  }

  /** A routed response carried {@code x-envoy-immediate-health-check-fail} (any thread). */
  void passiveFailure(Host host) {
    loop.loop().execute(() -> {
      Session s = sessions.get(host);
      if (s != null) {
        passiveFailure.inc();
        s.apply(s.state.onFailure(true), true, false);
      }
    });
  }

  private void reconcile(HostSet set) {
    if (stopped) {
      return;
    }
    HostSessions.reconcile(sessions, set, Session::stop, h -> {
      Session s = new Session(h);
      s.schedule(s.state.initialDelayNanos(random));
      return s;
    });
  }

  /** How one check ended. */
  enum Result { PASS, FAIL, FAIL_RETRIABLE, FAIL_NETWORK }

  /** One host's checks; lives on the health-check loop. */
  final class Session {
    final Host host;
    final HealthCheckState state = new HealthCheckState(config);
    private Channel channel;
    private ScheduledFuture<?> timer;
    private ScheduledFuture<?> timeout;
    private boolean inFlight;
    private boolean stopped;
    /** Set by the HTTP probe when the response carried x-envoy-immediate-health-check-fail. */
    boolean immediateFail;
    /** Set by the HTTP probe when the response carried x-envoy-degraded. */
    boolean degraded;

    Session(Host host) {
      this.host = host;
    }

    HostHealthConfig.HealthCheck config() {
      return config;
    }

    void schedule(long nanos) {
      timer = loop.loop().schedule(this::check, nanos, TimeUnit.NANOSECONDS);
    }

    private void check() {
      timer = null;
      if (stopped) {
        return;
      }
      attempt.inc();
      inFlight = true;
      immediateFail = false;
      degraded = false;
      timeout = loop.loop().schedule(this::onTimeout, config.timeout().toNanos(), TimeUnit.NANOSECONDS);
      if (channel != null && channel.isActive()) {
        probe.send(channel, this);
        return;
      }
      Bootstrap b = new Bootstrap()
          .group(loop.loop())
          .channelFactory(loop.channelFactory()::get)
          .option(ChannelOption.ALLOCATOR, loop.allocator())
          .option(ChannelOption.TCP_NODELAY, true)
          .option(ChannelOption.CONNECT_TIMEOUT_MILLIS,
              (int) Math.max(1, Math.min(Integer.MAX_VALUE, config.timeout().toMillis())))
          .remoteAddress(host.address())
          .handler(new ChannelInitializer<>() {
            @Override
            protected void initChannel(Channel ch) {
              UpstreamTls tls = cluster.tls();
              if (tls != null) {
                // Probes of a TLS cluster go over TLS too; their writes wait for the handshake.
                ch.pipeline().addLast("tls", tls.newHandler(ch.alloc(), host));
              }
              probe.initChannel(ch.pipeline(), Session.this);
            }
          });
      ChannelFuture connect = b.connect();
      channel = connect.channel();
      Channel mine = channel;
      connect.addListener(f -> {
        if (channel != mine || !inFlight) {
          mine.close();
          return;
        }
        if (f.isSuccess()) {
          probe.send(mine, this);
        } else {
          finish(Result.FAIL_NETWORK);
        }
      });
    }

    private void onTimeout() {
      timeout = null;
      if (inFlight) {
        closeChannel();
        finish(Result.FAIL_NETWORK);
      }
    }

    /** Whether {@code ch} is the session's connection now (answers on an abandoned one are ignored). */
    boolean current(Channel ch) {
      return ch == channel;
    }

    /** The connection closed: a check under way failed. */
    void connectionLost(Channel ch) {
      if (ch == channel) {
        channel = null;
        if (inFlight) {
          finish(Result.FAIL_NETWORK);
        }
      }
    }

    /** The probe's verdict on the check under way; ignored when none is. */
    void finish(Result result) {
      if (!inFlight || stopped) {
        return;
      }
      inFlight = false;
      if (timeout != null) {
        timeout.cancel(false);
        timeout = null;
      }
      HealthCheckState.Transition t;
      if (result == Result.PASS) {
        success.inc();
        t = state.onPass();
      } else {
        failure.inc();
        if (result == Result.FAIL_NETWORK) {
          networkFailure.inc();
        }
        t = state.onFailure(result == Result.FAIL || immediateFail);
        if (config.probe() instanceof HostHealthConfig.HttpProbe && result == Result.FAIL && !immediateFail) {
          log.debug("cluster {}: health check of {} failed", cluster.name(), host.addressString());
        }
      }
      if (result != Result.PASS || !config.reuseConnection() || probe.closesAfterCheck()) {
        closeChannel();
      }
      boolean degradedChanged = result == Result.PASS
          && degraded != ((host.healthFlags() & Host.DEGRADED_ACTIVE_HC) != 0);
      if (degradedChanged) {
        host.setHealthFlags(degraded ? Host.DEGRADED_ACTIVE_HC : 0, degraded ? 0 : Host.DEGRADED_ACTIVE_HC);
      }
      apply(t, immediateFail, degradedChanged);
      if (result == Result.PASS && host.outlier() != OutlierMonitor.NONE) {
        OutlierDetector d = cluster.outlierDetector();
        if (d != null && d.config().unejectOnHealthCheckPass()) {
          control.execute(() -> d.healthCheckPassed(host));
        }
      }
      schedule(state.nextIntervalNanos(!cluster.stats().upstreamRqTotal.used(), random));
    }

    /** @param degradedChanged whether the check just set or cleared the host's {@code degraded_active_hc} */
    void apply(HealthCheckState.Transition t, boolean immediate, boolean degradedChanged) {
      boolean changed;
      switch (t) {
        case BECAME_HEALTHY -> changed = host.setHealthFlags(0,
            Host.FAILED_ACTIVE_HC | Host.PENDING_ACTIVE_HC | Host.EXCLUDED_VIA_IMMEDIATE_HC_FAIL);
        case BECAME_UNHEALTHY -> {
          changed = host.setHealthFlags(Host.FAILED_ACTIVE_HC | (immediate ? Host.EXCLUDED_VIA_IMMEDIATE_HC_FAIL : 0),
              Host.PENDING_ACTIVE_HC);
          log.info("cluster {}: host {} failed its health check", cluster.name(), host.addressString());
        }
        default -> {
          host.setHealthFlags(0, Host.PENDING_ACTIVE_HC);
          changed = false;
        }
      }
      if (changed || degradedChanged) {
        control.execute(cluster::publishRouting);
      }
    }

    private void closeChannel() {
      Channel ch = channel;
      channel = null;
      if (ch != null) {
        ch.close();
      }
    }

    void stop() {
      stopped = true;
      inFlight = false;
      if (timer != null) {
        timer.cancel(false);
      }
      if (timeout != null) {
        timeout.cancel(false);
      }
      closeChannel();
    }
  }
}
