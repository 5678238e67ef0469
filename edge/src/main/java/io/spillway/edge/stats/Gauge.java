package io.spillway.edge.stats;

import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;

/**
 * A value that goes up and down, such as {@code listener.0.0.0.0_10000.downstream_cx_active}.
 *
 * <p><b>Cost.</b> Each update is one atomic add (or a volatile store for {@link #set(long)}) on the
 * gauge's own field, plus a read of the write-once {@code used} flag; no lock, no allocation. Unlike a
 * {@link Counter} it is not striped, because {@link #set(long)} must be exact; a gauge updated per
 * request from every event loop therefore shares one cache line between them, as Envoy's atomic
 * gauges do. Not touched by {@code /reset_counters}.
 */
public final class Gauge implements Stat {

  private static final VarHandle VALUE;

  static {
    try {
      VALUE = MethodHandles.lookup().findVarHandle(Gauge.class, "value", long.class);
    } catch (ReflectiveOperationException e) {
      throw new ExceptionInInitializerError(e);
    }
  }

  private final StatName statName;
  private volatile long value; // updated through VALUE
  private volatile boolean used;

  Gauge(StatName statName) {
    this.statName = statName;
  }

  public void inc() {
    add(1);
  }

  public void dec() {
    add(-1);
  }

  public void add(long amount) {
    long previous = (long) VALUE.getAndAdd(this, amount); // exact (Gauge,long)long call site
    markUsed();
  }

  public void sub(long amount) {
    add(-amount);
  }

  public void set(long newValue) {
    value = newValue;
    markUsed();
  }

  public long value() {
    return value;
  }

  @Override
  public StatName statName() {
    return statName;
  }

  @Override
  public boolean used() {
    return used;
  }

  private void markUsed() {
    if (!used) {
      used = true;
    }
  }

  @Override
  public String toString() {
    return statName.name() + ": " + value;
  }
}
