package io.spillway.edge.stats;

import java.util.Objects;
import java.util.function.DoubleSupplier;

/**
 * A gauge read from a supplier when rendered, for values something else already tracks (heap in
 * use, pooled buffer memory) or that are ratios and seconds ({@code http_admission_rtt_seconds}).
 * The supplier runs on the admin thread, so it must be thread-safe and cheap. Creating the same
 * name again replaces the supplier (the latest config's object wins) and returns this same object.
 */
public final class SuppliedGauge implements Stat {

  private final StatName statName;
  private volatile DoubleSupplier supplier;

  SuppliedGauge(StatName statName, DoubleSupplier supplier) {
    this.statName = statName;
    this.supplier = Objects.requireNonNull(supplier, "supplier");
  }

  /** The supplier's current value, or NaN if it threw (one broken supplier must not fail a scrape). */
  public double value() {
    try {
      return supplier.getAsDouble();
    } catch (RuntimeException e) {
      return Double.NaN;
    }
  }

  @Override
  public StatName statName() {
    return statName;
  }

  /** Always true: the value exists whenever it is read. */
  @Override
  public boolean used() {
    return true;
  }

  void supplyFrom(DoubleSupplier newSupplier) {
    this.supplier = Objects.requireNonNull(newSupplier, "supplier");
  }

  @Override
  public String toString() {
    return statName.name() + ": " + DecimalText.format(value());
  }
}
