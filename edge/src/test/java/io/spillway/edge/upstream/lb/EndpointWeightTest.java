package io.spillway.edge.upstream.lb;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.within;

import java.util.List;
import org.junit.jupiter.api.Test;

class EndpointWeightTest {
  private static final long S = 1_000_000_000L;

  private static double weight(String text, double penalty) {
    return EndpointWeight.fromReport(OrcaLoadReportParser.parseHeader("TEXT " + text), List.of(), penalty);
  }

  @Test
  void weightIsQpsOverUtilizationPlusErrorPenalty() {
    assertThat(weight("rps_fractional=100,application_utilization=0.5", 1)).isEqualTo(200);
    // eps / qps * penalty = 10 / 100 * 2 = 0.2 on top of 0.5
    assertThat(weight("rps_fractional=100,application_utilization=0.5,eps=10", 2)).isCloseTo(100 / 0.7, within(1e-9));
    assertThat(weight("rps_fractional=100,application_utilization=0.5,eps=10", 0)).isEqualTo(200);
    assertThat(weight("rps_fractional=100,cpu_utilization=0.25", 1)).isEqualTo(400);
  }

  @Test
  void noQpsOrNoUtilizationGivesNoWeight() {
    assertThat(weight("application_utilization=0.5", 1)).isZero();
    assertThat(weight("rps_fractional=100", 1)).isZero();
    assertThat(weight("rps_fractional=100,eps=5", 1)).isEqualTo(100 / 0.05);
  }

  @Test
  void blackoutThenWeightThenExpiry() {
    EndpointWeight w = new EndpointWeight();
    long blackout = 10 * S;
    long expiration = 180 * S;
    assertThat(w.current(0, blackout, expiration)).isZero();
    w.update(50, 1 * S);
    assertThat(w.current(1 * S, blackout, expiration)).isZero();
    w.update(60, 9 * S);
    assertThat(w.current(10 * S, blackout, expiration)).isZero(); // 9 s since it started reporting
    assertThat(w.current(11 * S, blackout, expiration)).isEqualTo(60);
    assertThat(w.current(11 * S, 0, expiration)).isEqualTo(60);
    w.update(0, 12 * S); // an unusable report changes nothing
    assertThat(w.current(12 * S, blackout, expiration)).isEqualTo(60);
    assertThat(w.current(9 * S + expiration, blackout, expiration)).isZero();
    // After expiry the blackout starts again.
    w.update(70, 200 * S);
    assertThat(w.current(205 * S, blackout, expiration)).isZero();
    assertThat(w.current(210 * S, blackout, expiration)).isEqualTo(70);
  }
}
