package io.spillway.edge.overload;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.spillway.edge.config.OverloadConfig;
import java.util.OptionalLong;
import org.junit.jupiter.api.Test;

/** The proactive global downstream connection count. */
class GlobalConnectionLimitTest {

  private static final String FAILED =
      "overload.envoy.resource_monitors.global_downstream_max_connections.failed_updates";

  private final OverloadFixtures f = new OverloadFixtures();

  private GlobalConnectionLimit limit(long max) {
    f.connectionMonitor(new OverloadConfig.GlobalDownstreamConnections(OptionalLong.of(max)));
    return f.build().globalConnections();
  }

  @Test
  void allowsExactlyTheLimit() {
    GlobalConnectionLimit connections = limit(5);

    for (int i = 0; i < 5; i++) {
      assertThat(connections.tryAllocate()).isTrue();
    }
    assertThat(connections.tryAllocate()).isFalse();
    assertThat(connections.active()).isEqualTo(5);
    assertThat(f.counter(FAILED)).isEqualTo(1);
    assertThat(connections.pressure()).isEqualTo(1.0);

    connections.deallocate();
    assertThat(connections.tryAllocate()).isTrue();
    assertThat(connections.limit()).hasValue(5);
  }

  @Test
  void exemptListenersAreCountedButNeverRefused() {
    GlobalConnectionLimit connections = limit(2);
    assertThat(connections.tryAllocate()).isTrue();
    assertThat(connections.tryAllocate()).isTrue();

    for (int i = 0; i < 3; i++) {
      connections.allocateIgnoringLimit();
    }

    assertThat(connections.active()).isEqualTo(5);
    assertThat(connections.pressure()).isEqualTo(1.0);
    // They take their share of the limit from the others.
    connections.deallocate();
    connections.deallocate();
    assertThat(connections.tryAllocate()).isFalse();
    connections.deallocate();
    connections.deallocate();
    assertThat(connections.pressure()).isEqualTo(0.5);
    assertThat(connections.tryAllocate()).isTrue();
    assertThat(f.counter(FAILED)).isEqualTo(1);
  }

  @Test
  void anUnbalancedDeallocationIsAnError() {
    GlobalConnectionLimit connections = limit(1);
    assertThatThrownBy(connections::deallocate).isInstanceOf(IllegalStateException.class);
    assertThat(connections.active()).isZero();
  }

  @Test
  void withoutALimitItCountsAndNeverRefuses() {
    GlobalConnectionLimit connections = GlobalConnectionLimit.unlimited();
    for (int i = 0; i < 10_000; i++) {
      assertThat(connections.tryAllocate()).isTrue();
    }
    assertThat(connections.active()).isEqualTo(10_000);
    assertThat(connections.pressure()).isZero();
    assertThat(connections.limit()).isEmpty();

    f.connectionMonitor(new OverloadConfig.GlobalDownstreamConnections(OptionalLong.empty()));
    GlobalConnectionLimit configured = f.build().globalConnections();
    assertThat(configured.tryAllocate()).isTrue();
    assertThat(configured.limit()).isEmpty();
  }
}
