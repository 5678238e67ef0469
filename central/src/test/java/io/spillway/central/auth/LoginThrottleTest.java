package io.spillway.central.auth;

import static org.assertj.core.api.Assertions.assertThat;

import io.spillway.central.MutableClock;
import java.time.Duration;
import java.time.Instant;
import org.junit.jupiter.api.Test;

class LoginThrottleTest {

  private final MutableClock clock = new MutableClock(Instant.parse("2030-01-01T00:00:00Z"));
  private final LoginThrottle throttle = new LoginThrottle(clock);

  @Test
  void aUsernameGetsItsAllowanceThenABackOffThatDoubles() {
    for (int i = 0; i < LoginThrottle.USER_ALLOWANCE; i++) {
      assertThat(throttle.refusal("alice", "10.0.0.1")).isEmpty();
      throttle.failed("alice", "10.0.0.1");
    }
    assertThat(throttle.refusal("alice", "10.0.0.1")).isEmpty();
    throttle.failed("alice", "10.0.0.1");
    assertThat(throttle.refusal("alice", "10.0.0.2")).as("from any address").hasValue(Duration.ofSeconds(1));
    assertThat(throttle.refusal("ALICE", "10.0.0.2")).as("in any case").hasValue(Duration.ofSeconds(1));
    assertThat(throttle.refusal("bob", "10.0.0.2")).isEmpty();
    clock.advance(Duration.ofSeconds(1));
    assertThat(throttle.refusal("alice", "10.0.0.1")).isEmpty();
    throttle.failed("alice", "10.0.0.1");
    assertThat(throttle.refusal("alice", "10.0.0.1")).hasValue(Duration.ofSeconds(2));
    clock.advance(Duration.ofSeconds(2));
    throttle.failed("alice", "10.0.0.1");
    assertThat(throttle.refusal("alice", "10.0.0.1")).hasValue(Duration.ofSeconds(4));
  }

  @Test
  void theBackOffStopsAtItsCeilingAndASuccessClearsTheUsername() {
    for (int i = 0; i < 40; i++) {
      throttle.failed("carol", "10.0.0." + i);
    }
    assertThat(throttle.refusal("carol", "10.0.0.99")).hasValue(LoginThrottle.MAX_BACKOFF);
    clock.advance(LoginThrottle.MAX_BACKOFF);
    throttle.succeeded("carol");
    throttle.failed("carol", "10.0.0.99");
    assertThat(throttle.refusal("carol", "10.0.0.99")).as("counting starts again").isEmpty();
  }

  @Test
  void oneAddressGuessingManyUsernamesIsSlowedToo() {
    for (int i = 0; i < LoginThrottle.ADDRESS_ALLOWANCE; i++) {
      throttle.failed("user" + i, "192.0.2.7");
    }
    assertThat(throttle.refusal("someone-new", "192.0.2.7")).isEmpty();
    throttle.failed("user-last", "192.0.2.7");
    assertThat(throttle.refusal("someone-new", "192.0.2.7")).hasValue(Duration.ofSeconds(1));
    assertThat(throttle.refusal("someone-new", "192.0.2.8")).isEmpty();
  }

  @Test
  void theRefusalEndsWhenItsBackOffHasPassed() {
    for (int i = 0; i <= LoginThrottle.USER_ALLOWANCE; i++) {
      throttle.failed("dave", "10.0.0.1");
    }
    assertThat(throttle.refusal("dave", "10.0.0.1")).isPresent();
    clock.advance(LoginThrottle.MAX_BACKOFF.plusSeconds(1));
    assertThat(throttle.refusal("dave", "10.0.0.1")).isEmpty();
  }
}
