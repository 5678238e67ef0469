package io.spillway.central.xds;

import com.google.protobuf.Message;
import com.google.protobuf.Value;
import io.envoyproxy.envoy.config.core.v3.Node;
import io.grpc.Status;
import io.grpc.stub.StreamObserver;
import io.spillway.central.auth.Secrets;
import io.spillway.policy.DeploymentDefaults;
import java.util.EnumMap;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.Map;
import java.util.Set;
import java.util.UUID;
import java.util.regex.Pattern;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * One ADS stream of one edge; State of the World ({@link SotwStream}) and Delta ({@link DeltaStream})
 * differ only in the wire format. Every method runs under the stream's lock: requests arrive on
 * gRPC's threads, pushes on the push threads.
 *
 * <p><b>Authentication.</b> The first request must carry a node whose id is a registered edge and
 * the credential ({@link EdgeAuthInterceptor}) must match that edge's; otherwise the stream ends
 * with {@code PERMISSION_DENIED}, counted and, for a known edge, recorded on it.
 *
 * <p><b>Per type</b> the stream keeps the subscription (wildcard or names), the nonce of the
 * response awaiting an answer (at most one per type), the version last sent and ACKed. A NACK
 * records the refused version on the edge's session: it is not sent to that edge again until a
 * newer version exists.
 *
 * <p><b>Make-before-break.</b> Clusters, endpoints, listeners and routes go out in that order:
 * a type is held back while an earlier subscribed type has a response awaiting its answer or a
 * change still to send. The overload policy and the runtime layers are never held back, and never
 * hold those four back.
 *
 * <p><b>Runtime layers.</b> An RTDS subscription names its layer, and central serves every name
 * subscribed: a runtime it holds no resource for goes out as an empty layer of that name. State of
 * the World cannot tell a client that a named resource is gone (a response leaves out what did not
 * change), and Envoy expects exactly one resource in an RTDS response, so this is how deleting a
 * runtime through the API empties the edges' layer, in both variants.
 */
abstract class AdsStream {

  private static final Logger log = LoggerFactory.getLogger(AdsStream.class);
  private static final Pattern LOGGABLE_ID = Pattern.compile("[A-Za-z0-9._:-]{1,128}");
  static final String DEPLOYMENT_DEFAULTS_KEY = "spillway.deployment_defaults";

  /** The stream's view of one type. */
  static final class TypeState {
    final XdsType type;
    boolean subscribed;
    boolean wildcard;
    Set<String> names = new LinkedHashSet<>();
    /** The nonce of the response the client has not answered yet, or null. */
    String awaitingNonce;
    String sentVersion;
    String ackedVersion;
    /** Send the current state even if its version was sent before (a new or changed subscription). */
    boolean force;
    /** Delta: resource name → version the client holds (as far as its ACKs tell). */
    Map<String, String> known = new HashMap<>();
    /** Delta: what {@link #known} becomes when the response awaiting an answer is ACKed. */
    Map<String, String> inflight;
    /** When the change this type has still to send was published (nanoTime), or 0: for the push latency. */
    long changedSince;

    TypeState(XdsType type) {
      this.type = type;
    }

    /** Whether a resource of this name belongs to the subscription. */
    boolean wants(String name) {
      return wildcard || names.contains(name);
    }
  }

  final XdsServer.Context context;
  final String credential;
  /** The SHA-256 of the credential, as the registry stores it. */
  final String credentialHash;
  final String streamId = UUID.randomUUID().toString();
  final Map<XdsType, TypeState> types = new EnumMap<>(XdsType.class);
  String edgeId;
  EdgeStreams.Session session;
  EdgeSnapshot snapshot;
  boolean closed;
  private boolean detached;
  private long nonces;

  /**
   * The {@code control_plane} of every response. Its identifier names the overload policy's type
   * URL as a word, which is how an edge learns that this server serves that type: an edge asks a
   * server for the policy only after seeing it, so a server that knows only Envoy's types is never
   * asked for a type it would end the stream over. It names the edge report service
   * ({@link ReportService}) the same way.
   */
  static final io.envoyproxy.envoy.config.core.v3.ControlPlane CONTROL_PLANE =
      io.envoyproxy.envoy.config.core.v3.ControlPlane.newBuilder()
          .setIdentifier("spillway-central " + XdsType.OVERLOAD_POLICY.typeUrl() + " "
              + io.spillway.report.EdgeReportService.SERVICE_NAME)
          .build();

  /** The name that subscribes to every resource of a type. */
  static final String WILDCARD = "*";

  /** Where responses go (either variant's observer; only its end is handled here). */
  private final StreamObserver<?> responses;

  AdsStream(XdsServer.Context context, String credential, StreamObserver<?> responses) {
    this.context = context;
    this.credential = credential;
    this.responses = responses;
    this.credentialHash = credential == null ? "" : Secrets.hash(credential);
    for (XdsType type : XdsType.values()) {
      types.put(type, new TypeState(type));
    }
  }

  /** The variant, for logs: SotW or Delta. */
  abstract String variant();

  /** Whether the current set of the type differs from what the client has (refusals aside). */
  abstract boolean differs(TypeState state, TypeResources current);

  /** Writes one response with the current set; returns its nonce. */
  abstract String send(TypeState state, TypeResources current, String nonce);

  /**
   * The current set of a type as this stream's subscription is served: the snapshot's, and for
   * RTDS an empty layer under every subscribed name the snapshot has no runtime for.
   */
  final TypeResources current(TypeState state) {
    TypeResources set = snapshot.of(state.type);
    if (state.type != XdsType.RUNTIME || set.resources().keySet().containsAll(state.names)) {
      return set;
    }
    Map<String, Message> all = new LinkedHashMap<>(set.resources());
    for (String name : state.names) {
      all.computeIfAbsent(name, n -> io.envoyproxy.envoy.service.runtime.v3.Runtime.newBuilder().setName(n).build());
    }
    return new TypeResources(set.version(), all);
  }

  /** Whether the current set of the type may be sent: it differs, and is not a version the edge refused. */
  final boolean hasChange(TypeState state, TypeResources current) {
    return !refused(state.type, current.version()) && differs(state, current);
  }

  /**
   * What every request goes through first: the stream still open, the first request's node
   * authenticated, a type this server serves.
   *
   * @return the type's state, or null when the request needs nothing more (no answer)
   */
  final TypeState typeOf(Node node, String typeUrl) {
    if (closed || (edgeId == null && !authenticate(node))) {
      return null;
    }
    XdsType type = XdsType.ofUrl(typeUrl);
    return type == null ? null : types.get(type); // a type not served gets no answer, as a missing name
  }

  /** Ends the stream with an error status. */
  final void fail(Status status) {
    try {
      responses.onError(status.asRuntimeException());
    } catch (IllegalStateException e) {
      // already ended
    }
  }

  /** The client's side failed or was cancelled. */
  public final void onError(Throwable t) {
    ended(t);
  }

  /** The client ended its side: so does the server. */
  public final void onCompleted() {
    ended(null);
    try {
      responses.onCompleted();
    } catch (IllegalStateException e) {
      // already ended
    }
  }

  /**
   * Checks the first request's node against the registry; on success joins the edge's session and
   * records the connection and the deployment defaults the edge reports.
   */
  final boolean authenticate(Node node) {
    String id = node.getId();
    if (id.isEmpty()) {
      refuse(XdsMetrics.AuthFailure.UNKNOWN_NODE, "the first request must carry node.id, the edge's registered id", null);
      return false;
    }
    String shown = loggable(id);
    java.util.Optional<io.spillway.central.edges.EdgeStore.Edge> registered = context.streams().edges().get(id);
    if (registered.isEmpty()) {
      refuse(XdsMetrics.AuthFailure.UNKNOWN_NODE, "node " + shown + " is not a registered edge (register it with POST /configuration/edges)", null);
      return false;
    }
    if (!context.streams().edges().credentialMatches(id, credentialHash)) {
      refuse(XdsMetrics.AuthFailure.BAD_CREDENTIAL, "the credential does not match the one registered for edge " + shown, id);
      return false;
    }
    edgeId = id;
    log.info("xDS: edge {} connected ({} stream {})", id, variant(), streamId);
    context.streams().writeStatus(() -> context.streams().edges().streamOpened(id, streamId));
    reportDefaults(node);
    session = context.streams().attach(this, id, registered.get().status().refusedVersions());
    snapshot = session.snapshot;
    return true;
  }

  private void refuse(XdsMetrics.AuthFailure reason, String message, String knownEdge) {
    context.metrics().authFailure(reason);
    log.warn("xDS: refused an ADS stream: {}", message);
    if (knownEdge != null) {
      context.streams().writeStatus(() -> context.streams().edges().recordAuthFailure(knownEdge, message));
    }
    closed = true;
    fail(Status.PERMISSION_DENIED.withDescription(message));
  }

  private void reportDefaults(Node node) {
    Value reported = node.getMetadata().getFieldsMap().get(DEPLOYMENT_DEFAULTS_KEY);
    if (reported == null || !reported.hasStructValue()) {
      return;
    }
    Map<String, String> variables = new LinkedHashMap<>();
    reported.getStructValue().getFieldsMap().forEach((name, value) -> {
      if (value.hasStringValue()) {
        variables.put(name, value.getStringValue());
      }
    });
    DeploymentDefaults defaults;
    try {
      defaults = DeploymentDefaults.fromEnvironment(variables);
    } catch (IllegalArgumentException e) {
      log.warn("xDS: edge {} reported deployment defaults that do not read: {}", edgeId, e.getMessage());
      return;
    }
    String id = edgeId;
    context.streams().writeStatus(() -> context.streams().edges().reportDefaults(id, defaults));
  }

  /** A new snapshot of the edge (a committed change, or the re-sync). */
  final synchronized void offer(EdgeSnapshot next, long publishedNanos) {
    if (closed || (snapshot != null && next.sequence < snapshot.sequence)) {
      return;
    }
    snapshot = next;
    for (TypeState state : types.values()) {
      if (state.subscribed && state.changedSince == 0 && hasChange(state, current(state))) {
        state.changedSince = publishedNanos;
      }
    }
    sendDue();
  }

  /** The client answered a response with an ACK. */
  final void acked(TypeState state) {
    state.awaitingNonce = null;
    state.ackedVersion = state.sentVersion;
    String refused = session.nacked.get(state.type);
    if (refused != null && !refused.equals(state.sentVersion) && session.nacked.remove(state.type, refused)) {
      // The edge took another version since: the refused one may be sent again if it comes back.
      String id = edgeId;
      context.streams().writeStatus(() -> context.streams().edges().clearRefused(id, state.type.typeUrl(), refused));
    }
    context.metrics().acked(state.type);
    Map<String, String> acked = new LinkedHashMap<>();
    for (TypeState t : types.values()) {
      if (t.ackedVersion != null) {
        acked.put(t.type.typeUrl(), t.ackedVersion);
      }
    }
    context.streams().recordAcked(edgeId, acked);
  }

  /** The client refused a response: the version is recorded and not resent until a newer one exists. */
  final void nacked(TypeState state, String error) {
    state.awaitingNonce = null;
    String version = state.sentVersion;
    session.nacked.put(state.type, version);
    context.metrics().nacked(state.type);
    log.warn("xDS: edge {} refused {} version {}: {}", edgeId, state.type.shortName(), version, oneLine(error));
    String id = edgeId;
    context.streams().writeStatus(() -> context.streams().edges().recordNack(id, state.type.typeUrl(), version, error));
  }

  /** Whether the edge refused this version of the type. */
  final boolean refused(XdsType type, String version) {
    return version.equals(session.nacked.get(type));
  }

  /** Sends every type that has something to send and is not held back, in order. */
  final void sendDue() {
    if (closed || snapshot == null) {
      return;
    }
    for (XdsType type : XdsType.values()) {
      TypeState state = types.get(type);
      if (!state.subscribed || state.awaitingNonce != null || heldBack(type)) {
        continue;
      }
      TypeResources current = current(state);
      if (!hasChange(state, current)) {
        continue;
      }
      String nonce = Long.toString(++nonces);
      try {
        state.awaitingNonce = send(state, current, nonce);
      } catch (RuntimeException e) { // the call was cancelled under us
        log.debug("xDS: writing to the stream of edge {} failed: {}", edgeId, e.toString());
        ended(e);
        return;
      }
      state.sentVersion = current.version();
      state.force = false;
      context.metrics().pushed(type);
      if (state.changedSince != 0) {
        context.metrics().pushLatency(System.nanoTime() - state.changedSince);
        state.changedSince = 0;
      }
    }
  }

  /** Whether an earlier type (clusters → endpoints → listeners → routes) is still on its way. */
  private boolean heldBack(XdsType type) {
    if (!XdsType.ORDERED.contains(type)) {
      return false; // the overload policy and runtime layers go out beside the ordered four
    }
    for (XdsType earlier : XdsType.ORDERED) {
      if (earlier == type) {
        return false;
      }
      TypeState state = types.get(earlier);
      if (state.subscribed && (state.awaitingNonce != null || hasChange(state, current(state)))) {
        return true;
      }
    }
    return false;
  }

  /** The stream ended (by the client, an error, or central stopping). */
  final synchronized void ended(Throwable error) {
    if (!closed && error != null && edgeId != null) {
      context.metrics().streamError();
    }
    closed = true;
    if (edgeId == null || detached) {
      return;
    }
    detached = true;
    context.streams().detach(this, session);
    String id = edgeId;
    context.streams().writeStatus(() -> context.streams().edges().streamClosed(id, streamId));
    log.info("xDS: edge {} disconnected ({} stream {}{})", edgeId, variant(), streamId,
        error == null ? "" : ": " + Status.fromThrowable(error).getCode());
  }

  /** The stream's credential is no longer the edge's: ends it with {@code PERMISSION_DENIED}. */
  final synchronized void revoke(String message) {
    if (!closed) {
      log.warn("xDS: ending a stream of edge {}: {}", edgeId, message);
      closed = true;
      fail(Status.PERMISSION_DENIED.withDescription(message));
    }
    ended(null);
  }

  /** Central is stopping: ends the stream so the edge reconnects (to another replica, or later). */
  final synchronized void serverClosing() {
    if (!closed) {
      closed = true;
      fail(Status.UNAVAILABLE.withDescription("central is stopping"));
    }
    ended(null);
  }

  /** Text from the client kept to one log line. */
  static String oneLine(String text) {
    return text.replaceAll("[\\r\\n\\t\\p{Cntrl}]+", " ");
  }

  static String loggable(String id) {
    return LOGGABLE_ID.matcher(id).matches() ? id : "(invalid id)";
  }
}
