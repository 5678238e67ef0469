package io.spillway.edge.http;

import io.netty.util.concurrent.EventExecutor;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;

/**
 * The deadlines of one HTTP/2 connection's streams on one timer. A stream asks for a callback at
 * its deadline; the timer is moved only when a stream needs it earlier than it is set, so the
 * common case — every stream with the same idle timeout — costs a set insertion and removal per
 * stream instead of scheduling and cancelling a task each time. When the timer fires, every stream
 * whose deadline has passed is called (it acts or asks again), and the timer is set for the
 * earliest deadline left. Event loop only.
 */
final class StreamDeadlines {

  /** A stream with a deadline. */
  interface Timed {
    /** The deadline (System.nanoTime) this stream asked for, 0 for none. */
    long deadline();

    void setDeadline(long deadlineNanos);

    void onDeadline();
  }

  private final EventExecutor executor;
  private final HashSet<Timed> armed = new HashSet<>();
  private ScheduledFuture<?> timer;
  private long timerAt;

  StreamDeadlines(EventExecutor executor) {
    this.executor = executor;
  }

  /** Calls {@code stream.onDeadline()} at or after {@code deadlineNanos}; an earlier deadline already asked for stays. */
  void arm(Timed stream, long deadlineNanos) {
    long current = stream.deadline();
    if (current != 0 && current - deadlineNanos <= 0) {
      return;
    }
    stream.setDeadline(deadlineNanos);
    armed.add(stream);
    if (timer == null || deadlineNanos - timerAt < 0) {
      schedule(deadlineNanos);
    }
  }

  /** The stream ended: no callback. */
  void disarm(Timed stream) {
    if (stream.deadline() != 0) {
      stream.setDeadline(0);
      armed.remove(stream);
    }
  }

  private void schedule(long at) {
    if (timer != null) {
      timer.cancel(false);
    }
    timerAt = at;
    timer = executor.schedule(this::fire, Math.max(1, at - System.nanoTime()), TimeUnit.NANOSECONDS);
  }

  private void fire() {
    timer = null;
    long now = System.nanoTime();
    ArrayList<Timed> due = null;
    long next = 0;
    for (Timed t : armed) {
      long d = t.deadline();
      if (d - now <= 0) {
        if (due == null) {
          due = new ArrayList<>();
        }
        due.add(t);
      } else if (next == 0 || d - next < 0) {
        next = d;
      }
    }
    if (due != null) {
      for (int i = 0; i < due.size(); i++) {
        Timed t = due.get(i);
        armed.remove(t);
        t.setDeadline(0);
        t.onDeadline(); // may arm again
      }
    }
    if (timer == null && !armed.isEmpty()) {
      long earliest = next;
      for (Timed t : armed) {
        long d = t.deadline();
        if (earliest == 0 || d - earliest < 0) {
          earliest = d;
        }
      }
      schedule(earliest);
    }
  }
}
