package io.spillway.edge.accesslog;

/** Where an access logger's lines go. {@link #write} is called on workers and never blocks. */
public interface LogSink {

  /** Hands one line (with its newline) over; a line that cannot be buffered is dropped and counted. */
  void write(String line);
}
