package io.spillway.edge.tracing;

/** Where finished, sampled spans go. Called on the workers: must not block or lock. */
public interface SpanReporter {
  void report(RequestSpan span);
}
