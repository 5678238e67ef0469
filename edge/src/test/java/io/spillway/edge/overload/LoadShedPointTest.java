package io.spillway.edge.overload;

import static io.spillway.edge.overload.OverloadFixtures.scaled;
import static io.spillway.edge.overload.OverloadFixtures.threshold;
import static org.assertj.core.api.Assertions.assertThat;

import io.spillway.edge.config.OverloadNames;
import java.util.SplittableRandom;
import java.util.random.RandomGenerator;
import org.junit.jupiter.api.Test;

/** Probabilistic shedding: max of the triggers, Bernoulli draws from the caller's seeded generator. */
class LoadShedPointTest {

  private static final String ACCEPT = OverloadNames.TCP_LISTENER_ACCEPT;
  private static final String COUNT = "overload.envoy.load_shed_points.tcp_listener_accept.shed_load_count";
  private static final String SCALE = "overload.envoy.load_shed_points.tcp_listener_accept.scale_percent";

  private final OverloadFixtures f = new OverloadFixtures();

  @Test
  void shedsInProportionToAScaledTriggersState() {
    f.monitor("heap").pressure(0.5);
    f.shedPoint(ACCEPT, scaled("heap", 0.25, 0.75));
    OverloadManager manager = f.build();
    manager.refresh();
    LoadShedPoint point = manager.loadShedPoint(ACCEPT);
    OverloadState state = manager.state();
    assertThat(state.shedProbability(point.index())).isEqualTo(0.5);
    assertThat(f.gauge(SCALE)).isEqualTo(50);

    int draws = 100_000;
    RandomGenerator random = new SplittableRandom(20240601L);
    int shed = 0;
    for (int i = 0; i < draws; i++) {
      if (point.shouldShed(state, random)) {
        shed++;
      }
    }

    // Binomial(n = 100 000, p = 0.5): sigma = sqrt(n p (1 - p)) ~ 158; allow 5 sigma.
    double sigma = Math.sqrt(draws * 0.5 * 0.5);
    assertThat((double) shed).isBetween(draws * 0.5 - 5 * sigma, draws * 0.5 + 5 * sigma);
    assertThat(f.counter(COUNT)).isEqualTo(shed);
  }

  @Test
  void theProbabilityIsTheMaximumOfTheTriggers() {
    f.monitor("heap").pressure(0.5);
    f.monitor("cpu").pressure(0.9);
    f.shedPoint(ACCEPT, scaled("heap", 0.25, 0.75), scaled("cpu", 0.8, 1.0));
    OverloadManager manager = f.build();
    manager.refresh();

    assertThat(manager.state().shedProbability(manager.loadShedPoint(ACCEPT).index()))
        .isCloseTo(0.5, org.assertj.core.api.Assertions.within(1e-12));
  }

  @Test
  void alwaysShedsAtOneAndNeverAtZero() {
    FakeMonitor heap = f.monitor("heap").pressure(0.95);
    f.shedPoint(ACCEPT, threshold("heap", 0.95));
    OverloadManager manager = f.build();
    LoadShedPoint point = manager.loadShedPoint(ACCEPT);
    CountingRandom random = new CountingRandom();

    manager.refresh();
    for (int i = 0; i < 1000; i++) {
      assertThat(point.shouldShed(manager.state(), random)).isTrue();
    }
    assertThat(f.counter(COUNT)).isEqualTo(1000);
    assertThat(f.gauge(SCALE)).isEqualTo(100);

    heap.pressure(0.2);
    manager.refresh();
    for (int i = 0; i < 1000; i++) {
      assertThat(point.shouldShed(manager.state(), random)).isFalse();
    }
    assertThat(f.counter(COUNT)).isEqualTo(1000);
    // Neither certainty needs a draw.
    assertThat(random.draws).isZero();
  }

  /** A generator that counts its draws. */
  private static final class CountingRandom implements RandomGenerator {
    private final SplittableRandom delegate = new SplittableRandom(1);
    int draws;

    @Override
    public long nextLong() {
      draws++;
      return delegate.nextLong();
    }

    @Override
    public double nextDouble() {
      draws++;
      return delegate.nextDouble();
    }
  }
}
