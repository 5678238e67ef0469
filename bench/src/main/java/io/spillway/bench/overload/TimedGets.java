package io.spillway.bench.overload;

import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.locks.LockSupport;

/**
 * GET requests sent at fixed times of a run ({@code --at T_S,URL}), on a thread of their own: the
 * way a scenario changes a backend on the generator's clock, e.g. {@code CapacityBackend}'s
 * {@code /__service?ms=500} at the start of a slow phase and {@code ?ms=50} at its end. Each GET
 * is recorded with its actual time and status for the summary.
 */
final class TimedGets {
  record At(double atS, String url) {}

  private record Done(At at, double sentS, int status) {}

  private final List<At> plan;
  private final List<Done> done = new ArrayList<>();

  TimedGets(List<At> plan) {
    this.plan = plan.stream().sorted(Comparator.comparingDouble(At::atS)).toList();
  }

  boolean any() {
    return !plan.isEmpty();
  }

  /** A daemon thread that sends each GET at {@code t0 + atS} (late if need be, never early). */
  Thread thread(long t0) {
    Thread t = new Thread(() -> {
      HttpClient client = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(1)).build();
      for (At a : plan) {
        long due = t0 + (long) (a.atS() * 1e9);
        while (System.nanoTime() < due) {
          if (Thread.currentThread().isInterrupted()) {
            return;
          }
          LockSupport.parkNanos(due - System.nanoTime());
        }
        double sentS = (System.nanoTime() - t0) / 1e9;
        int status;
        try {
          status = client.send(HttpRequest.newBuilder(URI.create(a.url())).timeout(Duration.ofSeconds(2)).build(),
              HttpResponse.BodyHandlers.discarding()).statusCode();
        } catch (InterruptedException e) {
          return;
        } catch (Exception e) {
          status = -1;
        }
        synchronized (done) {
          done.add(new Done(a, sentS, status));
        }
      }
    }, "timed-gets");
    t.setDaemon(true);
    return t;
  }

  /** The GETs sent so far, as a JSON array. */
  String json() {
    StringBuilder b = new StringBuilder("[");
    synchronized (done) {
      for (Done d : done) {
        b.append(b.length() > 1 ? "," : "").append(String.format(Locale.ROOT,
            "{\"at_s\":%.3f,\"sent_s\":%.3f,\"url\":\"%s\",\"status\":%d}", d.at().atS(), d.sentS(), d.at().url(), d.status()));
      }
    }
    return b.append(']').toString();
  }
}
