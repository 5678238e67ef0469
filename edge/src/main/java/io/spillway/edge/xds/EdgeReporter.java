package io.spillway.edge.xds;

import io.grpc.CallOptions;
import io.grpc.Channel;
import io.grpc.ClientInterceptors;
import io.grpc.Metadata;
import io.grpc.stub.ClientCallStreamObserver;
import io.grpc.stub.ClientCalls;
import io.grpc.stub.ClientResponseObserver;
import io.grpc.stub.MetadataUtils;
import io.spillway.edge.stats.Counter;
import io.spillway.edge.stats.Scope;
import io.spillway.report.EdgeReportProto.EdgeReport;
import io.spillway.report.EdgeReportProto.ReportAck;
import io.spillway.report.EdgeReportService;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.Objects;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.function.Supplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Reports the edge's protection gauges to central: a client-streaming
 * {@code spillway.central.report.v1.EdgeReportService/Report} call on the gRPC channel (and with
 * the initial metadata, so the credential) of the ADS stream, one {@code EdgeReport} per interval.
 *
 * <p><b>Only to central.</b> As a {@link ControlPlaneHook} of the {@link AdsClient} it learns of
 * every answered ADS stream; the report stream is opened only while the server's
 * {@code control_plane.identifier} names {@link EdgeReportService#SERVICE_NAME}, so a standard xDS
 * server never sees one. When the ADS stream closes, the report stream is ended too; it follows the
 * ADS client to the next server.
 *
 * <p><b>Failures.</b> A report stream that fails is counted ({@code xds.report.failed}) and
 * reopened after 1, 2, 4, 8, then every 12 intervals for as long as it keeps failing; a stream that
 * lived a whole interval starts the back-off afresh. Nothing is buffered: a report that cannot be
 * sent is dropped (the next one carries cumulative counters). Each report sent counts
 * {@code xds.report.sent}.
 *
 * <p><b>Threads.</b> Everything runs on the scheduler given, which the reporter owns (closing the
 * reporter shuts it down) — never on a worker event loop. The gauges are read there, from the
 * counters and atomics admission and the guards keep anyway.
 */
public final class EdgeReporter implements ControlPlaneHook {

  private static final Logger log = LoggerFactory.getLogger(EdgeReporter.class);
  /** Intervals to wait before reopening after the n-th consecutive failure (the last repeats). */
  static final int[] BACKOFF_INTERVALS = {1, 2, 4, 8, 12};

  private final String nodeId;
  private final Duration interval;
  private final Supplier<EdgeReport.Builder> gauges;
  private final ScheduledExecutorService scheduler;
  private final Clock clock;
  private final Instant startedAt;
  private final Counter sent;
  private final Counter failed;

  // Confined to the scheduler.
  private Channel channel;
  private Metadata headers;
  private ClientCallStreamObserver<EdgeReport> call;
  /** The open call has sent a report on an earlier tick and not failed since: it lived an interval. */
  private boolean callSentBefore;
  private int failures;
  private int ticksToWait;
  private boolean closed;

  /**
   * A reporter; nothing is sent before {@link #start()} and an advertising server.
   *
   * @param nodeId the edge's {@code node.id}, carried in every report
   * @param interval how often a report is sent (positive)
   * @param gauges a report with the admission, executor lag and peer fields filled, read on the scheduler
   * @param root the root stats scope ({@code xds.report.*})
   * @param scheduler the reporter's own thread
   * @param clock the report's timestamp
   * @param startedAt when this edge started (a new value tells central the counters restarted)
   */
  public EdgeReporter(String nodeId, Duration interval, Supplier<EdgeReport.Builder> gauges, Scope root,
      ScheduledExecutorService scheduler, Clock clock, Instant startedAt) {
    this.nodeId = Objects.requireNonNull(nodeId, "nodeId");
    if (interval.isNegative() || interval.isZero()) {
      throw new IllegalArgumentException("the report interval must be positive: " + interval);
    }
    this.interval = interval;
    this.gauges = Objects.requireNonNull(gauges, "gauges");
    this.scheduler = Objects.requireNonNull(scheduler, "scheduler");
    this.clock = Objects.requireNonNull(clock, "clock");
    this.startedAt = Objects.requireNonNull(startedAt, "startedAt");
    Scope scope = root.scope("xds").scope("report");
    this.sent = scope.counter("sent");
    this.failed = scope.counter("failed");
  }

  /** Starts the interval timer. */
  public void start() {
    long every = interval.toNanos();
    scheduler.scheduleAtFixedRate(this::tick, every, every, TimeUnit.NANOSECONDS);
  }

  @Override
  public void answered(Channel serverChannel, Metadata streamHeaders, String identifier) {
    boolean advertised = EdgeReportService.advertisedBy(identifier);
    run(() -> {
      if (!advertised) {
        forgetServer();
        return;
      }
      if (serverChannel != channel) {
        forgetServer();
        channel = serverChannel;
        headers = streamHeaders;
        log.info("xDS: the control plane takes edge reports; reporting every {}", interval);
      }
      if (call == null && ticksToWait == 0) {
        open();
        send();
      }
    });
  }

  @Override
  public void lost() {
    run(this::forgetServer);
  }

  /** Ends the report stream and stops the scheduler. */
  @Override
  public void close() {
    run(() -> {
      closed = true;
      endCall();
    });
    scheduler.shutdown();
  }

  private void run(Runnable task) {
    try {
      scheduler.execute(task);
    } catch (java.util.concurrent.RejectedExecutionException e) {
      // closed
    }
  }

  /** Every interval: reopen when due, then send. */
  private void tick() {
    if (closed || channel == null) {
      return;
    }
    if (call == null) {
      if (ticksToWait > 0 && --ticksToWait > 0) {
        return;
      }
      open();
    } else if (callSentBefore) {
      failures = 0;
    }
    send();
  }

  private void open() {
    Channel withHeaders = ClientInterceptors.intercept(channel, MetadataUtils.newAttachHeadersInterceptor(headers));
    ResponseObserver observer = new ResponseObserver();
    call = null;
    callSentBefore = false;
    try {
      ClientCalls.asyncClientStreamingCall(withHeaders.newCall(EdgeReportService.REPORT, CallOptions.DEFAULT), observer);
    } catch (RuntimeException e) {
      log.debug("xDS: cannot open the report stream: {}", e.toString());
      fail(null);
      return;
    }
    call = observer.requests;
  }

  private void send() {
    ClientCallStreamObserver<EdgeReport> current = call;
    if (current == null || (callSentBefore && !current.isReady())) {
      return; // the previous report is still being written: skip this one (the first is buffered until connected)
    }
    EdgeReport report = gauges.get()
        .setNodeId(nodeId)
        .setTimestampMs(clock.millis())
        .setIntervalMs((int) Math.min(Integer.MAX_VALUE, interval.toMillis()))
        .setStartedAtMs(startedAt.toEpochMilli())
        .build();
    try {
      current.onNext(report);
    } catch (RuntimeException e) {
      fail(current);
      current.cancel("the report could not be sent", e);
      return;
    }
    if (call == current) {
      callSentBefore = true;
      sent.inc();
    }
  }

  /** The call failed: count it and wait before the next attempt. */
  private void fail(ClientCallStreamObserver<EdgeReport> failedCall) {
    if (failedCall != call) {
      return;
    }
    call = null;
    failed.inc();
    ticksToWait = BACKOFF_INTERVALS[Math.min(failures, BACKOFF_INTERVALS.length - 1)];
    failures++;
  }

  private void forgetServer() {
    endCall();
    channel = null;
    headers = null;
  }

  private void endCall() {
    ClientCallStreamObserver<EdgeReport> current = call;
    call = null;
    if (current != null) {
      current.cancel("the edge stopped reporting to this server", null);
    }
  }

  /** The answer of one report call; every callback hops to the scheduler. */
  private final class ResponseObserver implements ClientResponseObserver<EdgeReport, ReportAck> {
    ClientCallStreamObserver<EdgeReport> requests;

    @Override
    public void beforeStart(ClientCallStreamObserver<EdgeReport> requestStream) {
      requests = requestStream;
    }

    @Override
    public void onNext(ReportAck ack) {
      // The server ends the stream with it; nothing to do.
    }

    @Override
    public void onError(Throwable t) {
      run(() -> {
        if (requests == call) {
          log.warn("xDS: the report stream failed: {}", t.getMessage());
          fail(requests);
        }
      });
    }

    @Override
    public void onCompleted() {
      run(() -> {
        if (requests == call) {
          call = null; // the server ended it: open another on the next tick
        }
      });
    }
  }
}
