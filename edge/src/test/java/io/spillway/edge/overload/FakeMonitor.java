package io.spillway.edge.overload;

import java.util.ArrayDeque;
import java.util.Deque;

/** A monitor the test drives: answers at once with a set pressure or failure, or holds the callbacks. */
final class FakeMonitor implements ResourceMonitor {

  private double pressure;
  private Exception failure;
  private boolean holdAnswers;
  private final Deque<Callbacks> held = new ArrayDeque<>();
  private int calls;

  FakeMonitor pressure(double value) {
    pressure = value;
    failure = null;
    return this;
  }

  FakeMonitor failing(Exception error) {
    failure = error;
    return this;
  }

  /** From now on, keep the callbacks until {@link #answer(double)}. */
  FakeMonitor holdAnswers() {
    holdAnswers = true;
    return this;
  }

  /** Answers the oldest held measurement. */
  void answer(double value) {
    held.removeFirst().onSuccess(value);
  }

  int held() {
    return held.size();
  }

  int calls() {
    return calls;
  }

  @Override
  public void updateResourceUsage(Callbacks callbacks) {
    calls++;
    if (holdAnswers) {
      held.addLast(callbacks);
    } else if (failure != null) {
      callbacks.onFailure(failure);
    } else {
      callbacks.onSuccess(pressure);
    }
  }
}
