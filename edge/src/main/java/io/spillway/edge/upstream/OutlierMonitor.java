package io.spillway.edge.upstream;

import io.spillway.edge.config.HostHealthConfig;
import io.spillway.edge.stats.StripedLong;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * One host's outlier-detection counters, fed by every worker's calls to it (Envoy's
 * {@code DetectorHostMonitor}). The hot path touches only atomics: consecutive-failure counts and
 * striped totals for the success rate. A consecutive count that reaches its threshold hands the
 * host to the detector on the control thread (once per crossing); the detector alone ejects.
 *
 * <p>Without {@code split_external_local_origin_errors}, a connect failure or reset counts as a
 * 503 and a timeout as a 504, as in Envoy; with it they are local-origin errors, counted apart.
 */
public final class OutlierMonitor {
  static final OutlierMonitor NONE = new OutlierMonitor();

  /** Why a host was ejected; the names are the stat suffixes. */
  enum EjectionType {
    CONSECUTIVE_5XX("consecutive_5xx"),
    CONSECUTIVE_GATEWAY_FAILURE("consecutive_gateway_failure"),
    CONSECUTIVE_LOCAL_ORIGIN_FAILURE("consecutive_local_origin_failure"),
    SUCCESS_RATE("success_rate"),
    LOCAL_ORIGIN_SUCCESS_RATE("local_origin_success_rate"),
    FAILURE_PERCENTAGE("failure_percentage"),
    FAILURE_PERCENTAGE_LOCAL_ORIGIN("failure_percentage_local_origin");

    final String statName;

    EjectionType(String statName) {
      this.statName = statName;
    }
  }

  private final Host host;
  private final OutlierDetector detector;
  private final HostHealthConfig.Outlier config;
  private final AtomicInteger consecutive5xx = new AtomicInteger();
  private final AtomicInteger consecutiveGateway = new AtomicInteger();
  private final AtomicInteger consecutiveLocal = new AtomicInteger();
  final StripedLong externalTotal = new StripedLong();
  final StripedLong externalFailed = new StripedLong();
  final StripedLong localTotal = new StripedLong();
  final StripedLong localFailed = new StripedLong();

  // ---- the detector's (control thread) -------------------------------------------------------
  /** Ejection count driving the ejection time (Envoy's back-off multiplier). */
  int backoff;
  /** Ejections of this host so far. */
  int ejections;
  long ejectedAtNanos;
  long ejectionNanos;
  boolean ejected;
  long lastExternalTotal;
  long lastExternalFailed;
  long lastLocalTotal;
  long lastLocalFailed;
  /** The success rates of the last interval, -1 when not computed (as /clusters prints them). */
  volatile double successRate = -1;
  volatile double localOriginSuccessRate = -1;

  /** The external-origin success rate of the last interval in percent, -1 when not computed. */
  public double successRate() {
    return successRate;
  }

  /** The local-origin success rate of the last interval in percent, -1 when not computed. */
  public double localOriginSuccessRate() {
    return localOriginSuccessRate;
  }

  private OutlierMonitor() {
    this.host = null;
    this.detector = null;
    this.config = null;
  }

  OutlierMonitor(Host host, OutlierDetector detector) {
    this.host = host;
    this.detector = detector;
    this.config = detector.config();
  }

  /** The host answered with this status (response headers arrived). */
  public void putHttpStatus(int status) {
    if (detector == null || status < 200) {
      return;
    }
    externalTotal.add(1);
    if (status >= 500) {
      externalFailed.add(1);
      if (status == 502 || status == 503 || status == 504) {
        if (consecutiveGateway.incrementAndGet() == config.consecutiveGatewayFailure()) {
          detector.onConsecutiveFailure(host, EjectionType.CONSECUTIVE_GATEWAY_FAILURE);
        }
      } else {
        reset(consecutiveGateway);
      }
      if (consecutive5xx.incrementAndGet() == config.consecutive5xx()) {
        detector.onConsecutiveFailure(host, EjectionType.CONSECUTIVE_5XX);
      }
    } else {
      reset(consecutive5xx);
      reset(consecutiveGateway);
    }
  }

  /** A connection (or stream) to the host was had: ends a run of local-origin failures. */
  public void localOriginSuccess() {
    if (detector == null || !config.splitExternalLocalOriginErrors()) {
      return;
    }
    localTotal.add(1);
    reset(consecutiveLocal);
  }

  /** Connect failure or reset before the response (Envoy's LOCAL_ORIGIN_CONNECT_FAILED). */
  public void localOriginFailure() {
    if (detector == null) {
      return;
    }
    if (!config.splitExternalLocalOriginErrors()) {
      putHttpStatus(503);
      return;
    }
    localFailure();
  }

  /** The request timed out (Envoy's LOCAL_ORIGIN_TIMEOUT). */
  void localOriginTimeout() {
    if (detector == null) {
      return;
    }
    if (!config.splitExternalLocalOriginErrors()) {
      putHttpStatus(504);
      return;
    }
    localFailure();
  }

  private void localFailure() {
    localTotal.add(1);
    localFailed.add(1);
    if (consecutiveLocal.incrementAndGet() == config.consecutiveLocalOriginFailure()) {
      detector.onConsecutiveFailure(host, EjectionType.CONSECUTIVE_LOCAL_ORIGIN_FAILURE);
    }
  }

  /** Zeroes a counter, writing only when it is not zero already (no shared-line write per success). */
  private static void reset(AtomicInteger counter) {
    if (counter.get() != 0) {
      counter.set(0);
    }
  }

  /** The detector ejected or returned the host: runs start again. */
  void resetConsecutive() {
    consecutive5xx.set(0);
    consecutiveGateway.set(0);
    consecutiveLocal.set(0);
  }
}
