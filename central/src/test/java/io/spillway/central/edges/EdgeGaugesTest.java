package io.spillway.central.edges;

import static org.assertj.core.api.Assertions.assertThat;

import io.spillway.central.MutableClock;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

class EdgeGaugesTest {

  private final MutableClock clock = new MutableClock(Instant.parse("2026-01-01T00:00:00Z"));
  private final EdgeGauges gauges = new EdgeGauges(clock);

  private static EdgeGauges.Sample sample(long t, long startedAt, long enforceProxy, long shadowStart,
      List<EdgeGauges.PeerSample> peers) {
    return new EdgeGauges.Sample(t, 5_000, startedAt, "enforce", 100, 7, 3,
        Map.of("start", 0L, "continuation", 0L, "proxy", enforceProxy),
        Map.of("start", shadowStart, "continuation", 0L, "proxy", 0L), peers);
  }

  private static EdgeGauges.Sample sample(long t) {
    return sample(t, 1, 0, 0, List.of());
  }

  private static int enforceProxy(EdgeGauges.Point p) {
    return p.refused(false, EdgeGauges.TIERS.indexOf("proxy"));
  }

  private static int shadowStart(EdgeGauges.Point p) {
    return p.refused(true, EdgeGauges.TIERS.indexOf("start"));
  }

  @Test
  void keepsTheLast180PointsOldestFirst() {
    for (int i = 0; i < 500; i++) {
      gauges.record("e1", sample(i));
    }
    List<EdgeGauges.Point> points = gauges.series("e1").orElseThrow().points();
    assertThat(points).hasSize(EdgeGauges.POINTS);
    assertThat(points.get(0).timeMs()).isEqualTo(500 - EdgeGauges.POINTS);
    assertThat(points.get(points.size() - 1).timeMs()).isEqualTo(499);
    assertThat(points.get(0).limit()).isEqualTo(100);
    assertThat(points.get(0).inFlight()).isEqualTo(7);
    assertThat(points.get(0).lagMs()).isEqualTo(3);
    assertThat(gauges.series("e1").orElseThrow().intervalMs()).isEqualTo(5_000);
  }

  @Test
  void refusalsArePerIntervalDeltasWithTheFirstReportAsBaseline() {
    gauges.record("e1", sample(1, 1, 40, 10, List.of()));
    gauges.record("e1", sample(2, 1, 45, 10, List.of()));
    gauges.record("e1", sample(3, 1, 52, 13, List.of()));
    List<EdgeGauges.Point> points = gauges.series("e1").orElseThrow().points();
    assertThat(points).extracting(EdgeGaugesTest::enforceProxy).containsExactly(0, 5, 7);
    assertThat(points).extracting(EdgeGaugesTest::shadowStart).containsExactly(0, 0, 3);
  }

  @Test
  void aCounterResetStartsANewBaselineAndIsNeverNegative() {
    gauges.record("e1", sample(1, 1, 100, 50, List.of()));
    gauges.record("e1", sample(2, 1, 110, 50, List.of()));
    // The edge restarted: new start time, counters from zero.
    gauges.record("e1", sample(3, 2, 4, 60, List.of()));
    gauges.record("e1", sample(4, 2, 9, 60, List.of()));
    // A counter that went down without a restart (counters reset by hand).
    gauges.record("e1", sample(5, 2, 2, 60, List.of()));
    List<EdgeGauges.Point> points = gauges.series("e1").orElseThrow().points();
    assertThat(points).extracting(EdgeGaugesTest::enforceProxy).containsExactly(0, 10, 4, 5, 2);
    assertThat(points).extracting(EdgeGaugesTest::shadowStart).containsExactly(0, 0, 60, 0, 0);
    assertThat(points).allSatisfy(p -> assertThat(java.util.Arrays.stream(p.refused()).min().orElse(0)).isNotNegative());
  }

  @Test
  void keepsAtMost16PeersByNameAndTheirStates() {
    List<EdgeGauges.PeerSample> peers = new ArrayList<>();
    for (int i = 0; i < 40; i++) {
      peers.add(new EdgeGauges.PeerSample(String.format("peer-%02d", 39 - i), i, i + 1, i == 39 ? "half_open" : "closed"));
    }
    peers.add(new EdgeGauges.PeerSample("auth", 3, 0, "open"));
    gauges.record("e1", sample(1, 1, 0, 0, peers));
    gauges.record("e1", sample(2, 1, 0, 0, peers));
    List<EdgeGauges.Point> points = gauges.series("e1").orElseThrow().points();
    EdgeGauges.Point p = points.get(1);
    assertThat(p.peerNames()).hasSize(EdgeGauges.MAX_PEERS);
    assertThat(p.peerNames()[0]).isEqualTo("auth");
    assertThat(p.peerNames()[1]).isEqualTo("peer-00");
    assertThat(EdgeGauges.BREAKER_STATES.get(p.peerBreaker()[0])).isEqualTo("open");
    assertThat(EdgeGauges.BREAKER_STATES.get(p.peerBreaker()[1])).isEqualTo("half_open");
    assertThat(p.peerInFlight()[1]).isEqualTo(39);
    assertThat(p.peerWaiting()[1]).isEqualTo(40);
    // Unchanged names are shared between points, not copied.
    assertThat(points.get(0).peerNames()).isSameAs(p.peerNames());
  }

  @Test
  void holdsAtMost1000EdgesAndTakesANewOneOnceASilentOneIsForgotten() {
    for (int i = 0; i < EdgeGauges.MAX_EDGES; i++) {
      assertThat(gauges.record("e" + i, sample(1))).isTrue();
    }
    assertThat(gauges.record("one-too-many", sample(1))).isFalse();
    assertThat(gauges.series("one-too-many")).isEmpty();
    assertThat(gauges.edgeCount()).isEqualTo(EdgeGauges.MAX_EDGES);
    // A held edge still reports.
    assertThat(gauges.record("e7", sample(2))).isTrue();
    clock.advance(EdgeGauges.SILENT.plusSeconds(1));
    assertThat(gauges.record("newcomer", sample(3))).isTrue();
    assertThat(gauges.edgeCount()).isEqualTo(1);
    assertThat(gauges.series("e0")).isEmpty();
  }

  @Test
  void anEdgeSilentForMoreThan15MinutesIsForgotten() {
    gauges.record("e1", sample(1));
    clock.advance(Duration.ofMinutes(15));
    assertThat(gauges.series("e1")).isPresent();
    clock.advance(Duration.ofSeconds(1));
    assertThat(gauges.series("e1")).isEmpty();
    assertThat(gauges.edgeCount()).isZero();
    // It comes back with a fresh baseline.
    gauges.record("e1", sample(2, 1, 500, 0, List.of()));
    assertThat(gauges.series("e1").orElseThrow().points()).extracting(EdgeGaugesTest::enforceProxy).containsExactly(0);
  }

  @Test
  void silentEdgesAreSweptAsOtherEdgesReport() {
    gauges.record("quiet", sample(1));
    gauges.record("busy", sample(1));
    for (int i = 0; i < 17; i++) {
      clock.advance(Duration.ofMinutes(1));
      gauges.record("busy", sample(i + 2));
    }
    assertThat(gauges.edgeCount()).isEqualTo(1);
  }

  @Test
  void aDeregisteredEdgeIsForgotten() {
    gauges.record("e1", sample(1));
    gauges.forget("e1");
    assertThat(gauges.series("e1")).isEmpty();
    assertThat(gauges.edgeCount()).isZero();
  }
}
