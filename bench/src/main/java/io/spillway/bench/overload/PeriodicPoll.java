package io.spillway.bench.overload;

import java.io.IOException;
import java.io.PrintWriter;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.concurrent.locks.LockSupport;

/**
 * A sampler thread: every {@code periodMs} until its end (or an interrupt) it asks its
 * {@link Sample} for one sample and writes what that returns to a TSV file, each line stamped with
 * its time in ms since the run's {@code t0}. A sample that fails on I/O writes the sample's
 * failure line instead, so the file has a row for every period.
 */
final class PeriodicPoll {
  private PeriodicPoll() {}

  /** One kind of sample. */
  interface Sample {
    /** The file's header line. */
    String header();

    /** The lines of sample {@code i} taken at {@code tMs}, written by {@code w}. */
    void take(Fetch fetch, PrintWriter w, long tMs, int i) throws IOException, InterruptedException;

    /** The line written when sample {@code i} failed on I/O. */
    String failure(long tMs);
  }

  /** GETs a 127.0.0.1 URL's body with a 1 s timeout. */
  interface Fetch {
    String get(String url) throws IOException, InterruptedException;
  }

  static Thread thread(String name, Sample sample, long periodMs, Path out, long t0, long endNanos) {
    Thread t = new Thread(() -> {
      HttpClient client = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(1)).build();
      Fetch fetch = url -> client.send(HttpRequest.newBuilder(URI.create(url)).timeout(Duration.ofSeconds(1)).build(),
          HttpResponse.BodyHandlers.ofString()).body();
      try (PrintWriter w = new PrintWriter(Files.newBufferedWriter(out))) {
        w.println(sample.header());
        long next = System.nanoTime();
        int i = 0;
        while (System.nanoTime() < endNanos && !Thread.currentThread().isInterrupted()) {
          long tMs = (System.nanoTime() - t0) / 1_000_000;
          try {
            sample.take(fetch, w, tMs, i);
          } catch (IOException e) {
            w.println(sample.failure(tMs));
          } catch (InterruptedException e) {
            break;
          }
          i++;
          next += periodMs * 1_000_000;
          long sleep = next - System.nanoTime();
          if (sleep > 0) {
            LockSupport.parkNanos(sleep);
          } else {
            next = System.nanoTime();
          }
        }
      } catch (IOException e) {
        System.err.println(name + ": " + e);
      }
    }, name);
    t.setDaemon(true);
    return t;
  }
}
