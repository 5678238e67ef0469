package io.spillway.policy;

import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.util.Objects;

/**
 * Converts between the {@link OverloadPolicy} model and its xDS resource,
 * {@code spillway.policy.v1.OverloadPolicy} ({@code src/main/proto/spillway/policy/v1/overload_policy.proto}).
 *
 * <p>A received resource is validated exactly like a JSON policy: {@link #parse} turns the message
 * into the JSON tree that {@link PolicyJson#parse(com.fasterxml.jackson.databind.JsonNode, DeploymentDefaults)}
 * reads, so the ranges, cross-field rules and messages are those of the one validator. Unset proto
 * fields (and {@code MODE_UNSPECIFIED}) are left out of that tree, so they stay unset and take the
 * deployment's value. A mode number this build does not know is a type problem at the mode's path.
 */
public final class PolicyProto {

  private static final JsonNodeFactory JSON = JsonNodeFactory.instance;

  private PolicyProto() {}

  /** Parses and validates a received resource against the built-in defaults. */
  public static ParseResult parse(io.spillway.policy.v1.OverloadPolicy message) {
    return parse(message, DeploymentDefaults.builtIn());
  }

  /** Parses a received resource and validates it against a deployment's baseline. */
  public static ParseResult parse(io.spillway.policy.v1.OverloadPolicy message, DeploymentDefaults defaults) {
    return PolicyJson.parse(toJsonTree(message), defaults);
  }

  /** The message as the JSON tree of the policy API (absent fields left out); not validated. */
  public static ObjectNode toJsonTree(io.spillway.policy.v1.OverloadPolicy message) {
    Objects.requireNonNull(message, "message");
    ObjectNode root = JSON.objectNode();
    if (message.hasInbound()) {
      io.spillway.policy.v1.Inbound in = message.getInbound();
      ObjectNode node = root.putObject("inbound");
      mode(node, in.getModeValue());
      if (in.hasMaxInFlight()) {
        node.put("maxInFlight", in.getMaxInFlight());
      }
      if (in.hasContinuationShare()) {
        node.put("continuationShare", in.getContinuationShare());
      }
      if (in.hasStartShare()) {
        node.put("startShare", in.getStartShare());
      }
      if (in.hasRetryAfterSeconds()) {
        node.put("retryAfterSeconds", in.getRetryAfterSeconds());
      }
      if (in.hasAdaptive()) {
        io.spillway.policy.v1.Adaptive a = in.getAdaptive();
        ObjectNode adaptive = node.putObject("adaptive");
        if (a.hasMinLimit()) {
          adaptive.put("minLimit", a.getMinLimit());
        }
        if (a.hasMaxLimit()) {
          adaptive.put("maxLimit", a.getMaxLimit());
        }
        if (a.hasTolerance()) {
          adaptive.put("tolerance", a.getTolerance());
        }
        if (a.hasSmoothing()) {
          adaptive.put("smoothing", a.getSmoothing());
        }
        if (a.hasLagTargetMillis()) {
          adaptive.put("lagTargetMillis", a.getLagTargetMillis());
        }
      }
    }
    if (message.hasOutbound()) {
      io.spillway.policy.v1.Outbound out = message.getOutbound();
      ObjectNode node = root.putObject("outbound");
      mode(node, out.getModeValue());
      if (out.hasMaxConcurrent()) {
        node.put("maxConcurrent", out.getMaxConcurrent());
      }
      if (out.hasMaxQueue()) {
        node.put("maxQueue", out.getMaxQueue());
      }
      if (out.hasQueueTimeoutMillis()) {
        node.put("queueTimeoutMillis", out.getQueueTimeoutMillis());
      }
      if (out.hasRequestTimeoutMillis()) {
        node.put("requestTimeoutMillis", out.getRequestTimeoutMillis());
      }
      if (out.hasBreaker()) {
        io.spillway.policy.v1.Breaker b = out.getBreaker();
        ObjectNode breaker = node.putObject("breaker");
        if (b.hasEnabled()) {
          breaker.put("enabled", b.getEnabled());
        }
        if (b.hasFailureRatio()) {
          breaker.put("failureRatio", b.getFailureRatio());
        }
        if (b.hasMinCalls()) {
          breaker.put("minCalls", b.getMinCalls());
        }
        if (b.hasWindowSeconds()) {
          breaker.put("windowSeconds", b.getWindowSeconds());
        }
        if (b.hasOpenSeconds()) {
          breaker.put("openSeconds", b.getOpenSeconds());
        }
        if (b.hasProbeCalls()) {
          breaker.put("probeCalls", b.getProbeCalls());
        }
      }
      if (out.hasRetryBudget()) {
        io.spillway.policy.v1.RetryBudget r = out.getRetryBudget();
        ObjectNode budget = node.putObject("retryBudget");
        if (r.hasRatio()) {
          budget.put("ratio", r.getRatio());
        }
        if (r.hasMinPerSecond()) {
          budget.put("minPerSecond", r.getMinPerSecond());
        }
      }
    }
    return root;
  }

  /** The policy as the xDS resource central sends; null components stay unset. */
  public static io.spillway.policy.v1.OverloadPolicy toProto(OverloadPolicy policy) {
    Objects.requireNonNull(policy, "policy");
    io.spillway.policy.v1.OverloadPolicy.Builder message = io.spillway.policy.v1.OverloadPolicy.newBuilder();
    if (policy.inbound() != null) {
      message.setInbound(inbound(policy.inbound()));
    }
    if (policy.outbound() != null) {
      message.setOutbound(outbound(policy.outbound()));
    }
    return message.build();
  }

  private static io.spillway.policy.v1.Inbound inbound(Inbound in) {
    io.spillway.policy.v1.Inbound.Builder b = io.spillway.policy.v1.Inbound.newBuilder();
    if (in.mode() != null) {
      b.setMode(mode(in.mode()));
    }
    if (in.maxInFlight() != null) {
      b.setMaxInFlight(in.maxInFlight());
    }
    if (in.continuationShare() != null) {
      b.setContinuationShare(in.continuationShare());
    }
    if (in.startShare() != null) {
      b.setStartShare(in.startShare());
    }
    if (in.retryAfterSeconds() != null) {
      b.setRetryAfterSeconds(in.retryAfterSeconds());
    }
    Adaptive a = in.adaptive();
    if (a != null) {
      io.spillway.policy.v1.Adaptive.Builder ab = io.spillway.policy.v1.Adaptive.newBuilder();
      if (a.minLimit() != null) {
        ab.setMinLimit(a.minLimit());
      }
      if (a.maxLimit() != null) {
        ab.setMaxLimit(a.maxLimit());
      }
      if (a.tolerance() != null) {
        ab.setTolerance(a.tolerance());
      }
      if (a.smoothing() != null) {
        ab.setSmoothing(a.smoothing());
      }
      if (a.lagTargetMillis() != null) {
        ab.setLagTargetMillis(a.lagTargetMillis());
      }
      b.setAdaptive(ab);
    }
    return b.build();
  }

  private static io.spillway.policy.v1.Outbound outbound(Outbound out) {
    io.spillway.policy.v1.Outbound.Builder b = io.spillway.policy.v1.Outbound.newBuilder();
    if (out.mode() != null) {
      b.setMode(mode(out.mode()));
    }
    if (out.maxConcurrent() != null) {
      b.setMaxConcurrent(out.maxConcurrent());
    }
    if (out.maxQueue() != null) {
      b.setMaxQueue(out.maxQueue());
    }
    if (out.queueTimeoutMillis() != null) {
      b.setQueueTimeoutMillis(out.queueTimeoutMillis());
    }
    if (out.requestTimeoutMillis() != null) {
      b.setRequestTimeoutMillis(out.requestTimeoutMillis());
    }
    Breaker br = out.breaker();
    if (br != null) {
      io.spillway.policy.v1.Breaker.Builder bb = io.spillway.policy.v1.Breaker.newBuilder();
      if (br.enabled() != null) {
        bb.setEnabled(br.enabled());
      }
      if (br.failureRatio() != null) {
        bb.setFailureRatio(br.failureRatio());
      }
      if (br.minCalls() != null) {
        bb.setMinCalls(br.minCalls());
      }
      if (br.windowSeconds() != null) {
        bb.setWindowSeconds(br.windowSeconds());
      }
      if (br.openSeconds() != null) {
        bb.setOpenSeconds(br.openSeconds());
      }
      if (br.probeCalls() != null) {
        bb.setProbeCalls(br.probeCalls());
      }
      b.setBreaker(bb);
    }
    RetryBudget r = out.retryBudget();
    if (r != null) {
      io.spillway.policy.v1.RetryBudget.Builder rb = io.spillway.policy.v1.RetryBudget.newBuilder();
      if (r.ratio() != null) {
        rb.setRatio(r.ratio());
      }
      if (r.minPerSecond() != null) {
        rb.setMinPerSecond(r.minPerSecond());
      }
      b.setRetryBudget(rb);
    }
    return b.build();
  }

  private static void mode(ObjectNode node, int number) {
    if (number == io.spillway.policy.v1.Mode.MODE_UNSPECIFIED_VALUE) {
      return;
    }
    io.spillway.policy.v1.Mode mode = io.spillway.policy.v1.Mode.forNumber(number);
    // A number this build does not know keeps its number as text, which the reader reports as a type problem.
    node.put("mode", mode == null ? "mode " + number : mode.name().toLowerCase(java.util.Locale.ROOT));
  }

  static io.spillway.policy.v1.Mode mode(Mode mode) {
    return switch (mode) {
      case OFF -> io.spillway.policy.v1.Mode.OFF;
      case SHADOW -> io.spillway.policy.v1.Mode.SHADOW;
      case ENFORCE -> io.spillway.policy.v1.Mode.ENFORCE;
    };
  }
}
