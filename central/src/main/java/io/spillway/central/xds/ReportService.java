package io.spillway.central.xds;

import io.grpc.ServerServiceDefinition;
import io.grpc.Status;
import io.grpc.stub.ServerCalls;
import io.grpc.stub.StreamObserver;
import io.spillway.central.auth.Secrets;
import io.spillway.central.edges.EdgeGauges;
import io.spillway.central.edges.EdgeStore;
import io.spillway.report.EdgeReportProto.EdgeReport;
import io.spillway.report.EdgeReportProto.Peer;
import io.spillway.report.EdgeReportProto.ReportAck;
import io.spillway.report.EdgeReportProto.TierRefusals;
import io.spillway.report.EdgeReportService;
import java.time.Clock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.regex.Pattern;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * {@code spillway.central.report.v1.EdgeReportService}: the edges' protection gauges, one report
 * per interval on a client-streaming call, kept in {@link EdgeGauges} for the console's charts.
 * Registered on the xDS server behind {@link EdgeAuthInterceptor} and advertised in the ADS
 * responses' {@code control_plane.identifier}.
 *
 * <p><b>Authentication.</b> The first report's {@code node_id} must be a registered edge whose
 * credential is the stream's, and every later report must carry the same id; otherwise the call
 * ends with {@code PERMISSION_DENIED} (counted as the ADS streams' refusals are). The credential is
 * checked again at most once a minute, so a replaced credential or a deregistered edge ends the
 * stream within a minute.
 */
final class ReportService {

  private static final Logger log = LoggerFactory.getLogger(ReportService.class);
  private static final Pattern LOGGABLE_ID = Pattern.compile("[A-Za-z0-9._:-]{1,128}");
  private static final long RECHECK_MS = Duration.ofMinutes(1).toMillis();

  private ReportService() {}

  /** The service, for {@link io.grpc.ServerInterceptors#intercept}. */
  static ServerServiceDefinition definition(EdgeStore edges, EdgeGauges gauges, XdsMetrics metrics, Clock clock) {
    return ServerServiceDefinition.builder(EdgeReportService.SERVICE_NAME)
        .addMethod(EdgeReportService.REPORT, ServerCalls.asyncClientStreamingCall(
            responses -> new Stream(edges, gauges, metrics, clock, EdgeAuthInterceptor.CREDENTIAL.get(), responses)))
        .build();
  }

  /** One edge's report call; gRPC delivers its messages one at a time. */
  private static final class Stream implements StreamObserver<EdgeReport> {
    private final EdgeStore edges;
    private final EdgeGauges gauges;
    private final XdsMetrics metrics;
    private final Clock clock;
    private final String credentialHash;
    private final StreamObserver<ReportAck> responses;
    private String edgeId;
    private long checkedAtMs;
    private boolean ended;

    Stream(EdgeStore edges, EdgeGauges gauges, XdsMetrics metrics, Clock clock, String credential,
        StreamObserver<ReportAck> responses) {
      this.edges = edges;
      this.gauges = gauges;
      this.metrics = metrics;
      this.clock = clock;
      this.credentialHash = credential == null ? "" : Secrets.hash(credential);
      this.responses = responses;
    }

    @Override
    public void onNext(EdgeReport report) {
      if (ended) {
        return;
      }
      String id = report.getNodeId();
      long now = clock.millis();
      if (edgeId != null && !edgeId.equals(id)) {
        deny(XdsMetrics.AuthFailure.UNKNOWN_NODE, "node " + loggable(id) + " does not match the edge " + edgeId
            + " this report stream belongs to");
        return;
      }
      if (edgeId == null || now - checkedAtMs >= RECHECK_MS) {
        java.util.Optional<String> registered = id.isEmpty() ? java.util.Optional.empty() : edges.credentialHash(id);
        if (edgeId != null && (registered.isEmpty() || !Secrets.constantTimeEquals(registered.get(), credentialHash))) {
          gauges.forget(edgeId); // deregistered or its credential replaced: its points go with it
        }
        if (registered.isEmpty()) {
          deny(XdsMetrics.AuthFailure.UNKNOWN_NODE, "node " + loggable(id) + " is not a registered edge");
          return;
        }
        if (!Secrets.constantTimeEquals(registered.get(), credentialHash)) {
          deny(XdsMetrics.AuthFailure.BAD_CREDENTIAL, "the credential does not match the one registered for edge "
              + loggable(id));
          return;
        }
        if (edgeId == null) {
          log.info("xDS: edge {} reports its gauges", id);
        }
        edgeId = id;
        checkedAtMs = now;
      }
      if (!gauges.record(edgeId, sample(report))) {
        log.debug("xDS: a report of edge {} was dropped: {} edges are held", edgeId, EdgeGauges.MAX_EDGES);
      }
    }

    @Override
    public void onError(Throwable t) {
      ended = true;
    }

    @Override
    public void onCompleted() {
      if (ended) {
        return;
      }
      ended = true;
      responses.onNext(ReportAck.getDefaultInstance());
      responses.onCompleted();
    }

    private void deny(XdsMetrics.AuthFailure reason, String message) {
      ended = true;
      metrics.authFailure(reason);
      log.warn("xDS: refused an edge report stream: {}", message);
      responses.onError(Status.PERMISSION_DENIED.withDescription(message).asRuntimeException());
    }
  }

  /** The report as the window stores it. */
  static EdgeGauges.Sample sample(EdgeReport report) {
    Map<String, Long> enforce = new HashMap<>();
    Map<String, Long> shadow = new HashMap<>();
    for (TierRefusals tier : report.getAdmission().getRefusedList()) {
      enforce.put(tier.getTier(), tier.getEnforce());
      shadow.put(tier.getTier(), tier.getShadow());
    }
    List<EdgeGauges.PeerSample> peers = new ArrayList<>();
    for (Peer peer : report.getPeersList()) {
      String breaker = switch (peer.getBreaker()) {
        case OPEN -> "open";
        case HALF_OPEN -> "half_open";
        default -> "closed";
      };
      peers.add(new EdgeGauges.PeerSample(peer.getName(), clamp(peer.getInFlight()), clamp(peer.getWaiting()), breaker));
    }
    return new EdgeGauges.Sample(report.getTimestampMs(), clamp(report.getIntervalMs()), report.getStartedAtMs(),
        report.getAdmission().getMode(), clamp(report.getAdmission().getLimit()),
        clamp(report.getAdmission().getInFlight()), clamp(report.getExecutorLagMs()), enforce, shadow, peers);
  }

  /** An unsigned protobuf int as a non-negative Java int. */
  private static int clamp(int unsigned) {
    return unsigned < 0 ? Integer.MAX_VALUE : unsigned;
  }

  private static String loggable(String id) {
    return LOGGABLE_ID.matcher(id).matches() ? id : "(an id that is not a valid edge id)";
  }
}
