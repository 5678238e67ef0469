package io.spillway.edge.stats.sink;

/** Where a stats flush goes (Envoy's {@code Stats::Sink}). Called on the main thread only. */
public interface StatsSink extends AutoCloseable {

  /** Sends one flush. Never throws for a failed send: the sink counts it. */
  void flush(MetricSnapshot snapshot);

  /** Releases the sink's socket. */
  @Override
  void close();
}
