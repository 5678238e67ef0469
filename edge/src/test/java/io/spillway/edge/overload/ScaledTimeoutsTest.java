package io.spillway.edge.overload;

import static io.spillway.edge.overload.OverloadFixtures.scaled;
import static org.assertj.core.api.Assertions.assertThat;

import io.spillway.edge.config.OverloadConfig;
import io.spillway.edge.config.OverloadConfig.TimerType;
import io.spillway.edge.config.OverloadNames;
import java.time.Duration;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** reduce_timeouts: min + (configured − min) × (1 − state), with Envoy's worked example exactly. */
class ScaledTimeoutsTest {

  private static final Duration IDLE = Duration.ofSeconds(600);

  private final OverloadFixtures f = new OverloadFixtures();
  private FakeMonitor heap;
  private OverloadManager manager;

  private void build() {
    heap = f.monitor("envoy.resource_monitors.fixed_heap");
    f.action(OverloadNames.REDUCE_TIMEOUTS, new OverloadConfig.ScaleTimers(Map.of(
            TimerType.HTTP_DOWNSTREAM_CONNECTION_IDLE, new OverloadConfig.AbsoluteMinimum(Duration.ofSeconds(2)),
            TimerType.HTTP_DOWNSTREAM_STREAM_IDLE, new OverloadConfig.ScaledMinimum(0.10))),
        scaled("envoy.resource_monitors.fixed_heap", 0.85, 0.95));
    manager = f.build();
  }

  @Test
  void theWorkedExample() {
    build();
    heap.pressure(0.92);
    manager.refresh();

    Duration scaled = manager.scaledTimeouts()
        .scaledTimeout(TimerType.HTTP_DOWNSTREAM_CONNECTION_IDLE, IDLE, manager.state());

    // 2 s + 598 s × (1 − 0.7) = 181.4 s
    assertThat(scaled).isEqualTo(Duration.ofMillis(181_400));
  }

  @Test
  void fullTimeoutWhenInactiveMinimumWhenSaturated() {
    build();
    ScaledTimeouts timeouts = manager.scaledTimeouts();
    assertThat(timeouts.scales(TimerType.HTTP_DOWNSTREAM_CONNECTION_IDLE)).isTrue();

    heap.pressure(0.5);
    manager.refresh();
    assertThat(timeouts.scaledTimeout(TimerType.HTTP_DOWNSTREAM_CONNECTION_IDLE, IDLE, manager.state()))
        .isEqualTo(IDLE);

    heap.pressure(0.99);
    manager.refresh();
    assertThat(timeouts.scaledTimeout(TimerType.HTTP_DOWNSTREAM_CONNECTION_IDLE, IDLE, manager.state()))
        .isEqualTo(Duration.ofSeconds(2));
    // min_scale 10 (%) of 600 s.
    assertThat(timeouts.scaledTimeout(TimerType.HTTP_DOWNSTREAM_STREAM_IDLE, IDLE, manager.state()))
        .isEqualTo(Duration.ofSeconds(60));
    // A timer type without a minimum is not scaled; nor is a disabled (zero) timeout.
    assertThat(timeouts.scaledTimeout(TimerType.TRANSPORT_SOCKET_CONNECT, Duration.ofSeconds(10), manager.state()))
        .isEqualTo(Duration.ofSeconds(10));
    assertThat(timeouts.scales(TimerType.TRANSPORT_SOCKET_CONNECT)).isFalse();
    assertThat(timeouts.scaledTimeout(TimerType.HTTP_DOWNSTREAM_CONNECTION_IDLE, Duration.ZERO, manager.state()))
        .isEqualTo(Duration.ZERO);
  }

  @Test
  void aMinimumAboveTheConfiguredTimeoutIsCapped() {
    assertThat(ScaledTimeouts.scale(Duration.ofSeconds(1),
        new OverloadConfig.AbsoluteMinimum(Duration.ofSeconds(5)), 1.0)).isEqualTo(Duration.ofSeconds(1));
    assertThat(ScaledTimeouts.scale(Duration.ofSeconds(100),
        new OverloadConfig.ScaledMinimum(0.5), 0.5)).isEqualTo(Duration.ofSeconds(75));
  }

  @Test
  void withoutReduceTimeoutsEveryTimeoutIsAsConfigured() {
    f.monitor("heap").pressure(1.0);
    OverloadManager plain = f.build();
    plain.refresh();

    assertThat(plain.scaledTimeouts()).isSameAs(ScaledTimeouts.NONE);
    assertThat(ScaledTimeouts.NONE.scaledTimeout(TimerType.HTTP_DOWNSTREAM_CONNECTION_IDLE, IDLE, plain.state()))
        .isEqualTo(IDLE);
  }
}
