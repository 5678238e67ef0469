package io.spillway.policy;

import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.util.Objects;

/**
 * Converts between the {@link RateLimitsPolicy} model and the {@code rate_limits} field of the
 * policy xDS resource ({@code spillway.policy.v1.RateLimits}). A received message is checked exactly
 * like the JSON section: {@link #parse} turns it into the JSON tree {@link RateLimitJson#parse}
 * reads, so ranges and messages are those of the one table. Unset optional fields stay unset.
 */
public final class RateLimitProto {

  private static final JsonNodeFactory JSON = JsonNodeFactory.instance;

  private RateLimitProto() {}

  /** Parses and checks a received section. */
  public static RateLimitJson.Result parse(io.spillway.policy.v1.RateLimits message) {
    return RateLimitJson.parse(toJsonTree(message));
  }

  /** The message as the JSON tree of the policy API; not checked. */
  public static ObjectNode toJsonTree(io.spillway.policy.v1.RateLimits message) {
    Objects.requireNonNull(message, "message");
    ObjectNode root = JSON.objectNode();
    ArrayNode limits = root.putArray("limits");
    for (io.spillway.policy.v1.RateLimit l : message.getLimitsList()) {
      ObjectNode node = limits.addObject();
      if (!l.getName().isEmpty()) {
        node.put("name", l.getName());
      }
      if (!l.getKey().isEmpty()) {
        node.put("key", l.getKey());
      }
      if (l.hasRate()) {
        node.put("rate", l.getRate());
      }
      if (l.hasBurst()) {
        node.put("burst", l.getBurst());
      }
      if (l.getModeValue() != io.spillway.policy.v1.Mode.MODE_UNSPECIFIED_VALUE) {
        io.spillway.policy.v1.Mode mode = io.spillway.policy.v1.Mode.forNumber(l.getModeValue());
        // A number this build does not know stays text the reader refuses with the mode's message.
        node.put("mode", mode == null ? "mode " + l.getModeValue() : mode.name().toLowerCase(java.util.Locale.ROOT));
      }
      if (l.hasRetryAfterSeconds()) {
        node.put("retryAfterSeconds", l.getRetryAfterSeconds());
      }
      if (l.getExemptCount() > 0) {
        ArrayNode exempt = node.putArray("exempt");
        l.getExemptList().forEach(exempt::add);
      }
      if (l.hasMaxKeys()) {
        node.put("maxKeys", l.getMaxKeys());
      }
      if (!l.getScope().isEmpty()) {
        node.put("scope", l.getScope());
      }
    }
    return root;
  }

  /** The section as the message central sends. */
  public static io.spillway.policy.v1.RateLimits toProto(RateLimitsPolicy policy) {
    Objects.requireNonNull(policy, "policy");
    io.spillway.policy.v1.RateLimits.Builder message = io.spillway.policy.v1.RateLimits.newBuilder();
    for (RateLimit l : policy.limits()) {
      io.spillway.policy.v1.RateLimit.Builder b = message.addLimitsBuilder();
      if (l.name() != null) {
        b.setName(l.name());
      }
      if (l.key() != null) {
        b.setKey(l.key());
      }
      if (l.rate() != null) {
        b.setRate(l.rate());
      }
      if (l.burst() != null) {
        b.setBurst(l.burst());
      }
      if (l.mode() != null) {
        b.setMode(PolicyProto.mode(l.mode()));
      }
      if (l.retryAfterSeconds() != null) {
        b.setRetryAfterSeconds(l.retryAfterSeconds());
      }
      if (l.exempt() != null) {
        b.addAllExempt(l.exempt());
      }
      if (l.maxKeys() != null) {
        b.setMaxKeys(l.maxKeys());
      }
      if (l.scope() != null) {
        b.setScope(l.scope().jsonName());
      }
    }
    return message.build();
  }
}
