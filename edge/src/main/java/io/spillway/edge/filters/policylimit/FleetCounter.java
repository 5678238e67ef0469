package io.spillway.edge.filters.policylimit;

import java.util.concurrent.CompletionStage;

/**
 * Where a {@code scope: fleet} limit is counted: one allowance per limit name and key value shared
 * by every edge that has the limit (in Redis, {@code io.spillway.edge.redis.RedisFleetCounter}).
 * Calls never block and complete on a thread of the counter's own, never a worker's.
 */
public interface FleetCounter {

  /** How one call ended. */
  enum Outcome {
    /** The shared count admitted the request and counted it. */
    ALLOWED,
    /** The shared count has no allowance left for this key value now; nothing was counted. */
    REFUSED,
    /** No answer within the counter's timeout. */
    TIMEOUT,
    /** The call failed: no connection, a refused command, a script error. */
    ERROR
  }

  /**
   * One call's answer.
   *
   * @param outcome how it ended
   * @param remaining requests the key value may still send at once (when allowed)
   * @param retryAfterMicros when refused: how long until the shared count admits one more
   */
  record Answer(Outcome outcome, long remaining, long retryAfterMicros) {
    /** A failed call's answer. */
    public static Answer failed(Outcome outcome) {
      return new Answer(outcome, 0, 0);
    }
  }

  /**
   * Whether calls should be made now: false while the counter knows they would not be answered in
   * time (no connection, or a call timed out less than a second ago); the limit then counts on this
   * edge alone. Hot path: a read of volatile state.
   */
  boolean available(long nowNanos);

  /**
   * The shared allowance of every key value of one limit, made once when the limit is applied (so
   * what a call sends that does not change per request is built once): a generic cell rate
   * algorithm with {@code rate} per second and {@code burst} at once.
   */
  Cell cell(String limit, double rate, int burst);

  /** One limit's shared allowance. */
  interface Cell {
    /**
     * Takes one request from the allowance of {@code value}. Completes normally in every case (a
     * failure is an answer's outcome).
     *
     * @param value the key value as the limit's table stores it (a long value already hashed)
     * @param hashed whether {@code value} is such a hash
     */
    CompletionStage<Answer> take(String value, boolean hashed);
  }
}
