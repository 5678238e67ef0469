package io.spillway.central.auth;

import com.github.benmanes.caffeine.cache.Cache;
import com.github.benmanes.caffeine.cache.Caffeine;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.Locale;
import java.util.Objects;
import java.util.Optional;

/**
 * Slows password guessing at the console login. Failed logins are counted per username and per
 * client address; once a count passes its allowance, every further attempt from that name or
 * address is refused for a back-off that doubles with each failure (1 s, 2 s, 4 s, … up to
 * {@link #MAX_BACKOFF}), before the password is hashed, so a guessing client costs neither a
 * password check nor a database read. A successful login clears its username's count (not the
 * address's). Counts are forgotten {@link #MEMORY} after the last failure.
 *
 * <p>The counts live in this replica's memory (bounded): behind several replicas an attacker gets
 * each replica's allowance, still a few guesses per second at most against the slow password hash.
 */
public final class LoginThrottle {

  /** Failures allowed per username before the back-off starts. */
  static final int USER_ALLOWANCE = 5;
  /** Failures allowed per client address (across usernames) before the back-off starts. */
  static final int ADDRESS_ALLOWANCE = 20;
  /** The longest back-off. */
  static final Duration MAX_BACKOFF = Duration.ofMinutes(15);
  /** How long a count is kept after its last failure. */
  static final Duration MEMORY = Duration.ofHours(1);

  /** Failures so far, and until when attempts are refused. */
  private record Failures(int count, Instant lockedUntil) {}

  private final Clock clock;
  private final Cache<String, Failures> byUser;
  private final Cache<String, Failures> byAddress;

  /** A throttle on the given clock. */
  public LoginThrottle(Clock clock) {
    this.clock = Objects.requireNonNull(clock, "clock");
    this.byUser = Caffeine.newBuilder().maximumSize(100_000).expireAfterWrite(MEMORY).build();
    this.byAddress = Caffeine.newBuilder().maximumSize(100_000).expireAfterWrite(MEMORY).build();
  }

  /** How long this attempt must wait, or empty when it may go ahead. */
  public Optional<Duration> refusal(String username, String address) {
    Instant now = clock.instant();
    Duration wait = Duration.ZERO;
    for (Failures f : new Failures[] {byUser.getIfPresent(key(username)), byAddress.getIfPresent(address)}) {
      if (f != null && f.lockedUntil().isAfter(now)) {
        Duration left = Duration.between(now, f.lockedUntil());
        wait = left.compareTo(wait) > 0 ? left : wait;
      }
    }
    return wait.isZero() ? Optional.empty() : Optional.of(wait);
  }

  /** Counts a failed attempt. */
  public void failed(String username, String address) {
    Instant now = clock.instant();
    byUser.asMap().compute(key(username), (k, f) -> next(f, USER_ALLOWANCE, now));
    byAddress.asMap().compute(address, (k, f) -> next(f, ADDRESS_ALLOWANCE, now));
  }

  /** Clears the username's count after a successful login. */
  public void succeeded(String username) {
    byUser.invalidate(key(username));
  }

  private static Failures next(Failures previous, int allowance, Instant now) {
    int count = previous == null ? 1 : previous.count() + 1;
    if (count <= allowance) {
      return new Failures(count, Instant.MIN);
    }
    int doublings = Math.min(count - allowance - 1, 20);
    Duration backoff = Duration.ofSeconds(1L << doublings);
    return new Failures(count, now.plus(backoff.compareTo(MAX_BACKOFF) > 0 ? MAX_BACKOFF : backoff));
  }

  private static String key(String username) {
    return username.toLowerCase(Locale.ROOT);
  }
}
