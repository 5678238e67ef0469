package io.spillway.edge.accesslog;

/**
 * One configured access log: its compiled filter and format and the sink its lines go to (Envoy's
 * per-config access log instance). Immutable, shared by every worker.
 */
public record AccessLogger(LogFilter filter, LogFormatter formatter, LogSink sink) {

  /** Writes the line of {@code in} when the filter lets it through. */
  public void log(LogInput in) {
    if (filter.evaluate(in)) {
      sink.write(formatter.format(in));
    }
  }
}
