package io.spillway.policy;

import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.util.Objects;

/**
 * Converts between the {@link AccessLogPolicy} model and the {@code access_log} field of the policy
 * xDS resource ({@code spillway.policy.v1.AccessLog}). A received message is checked exactly like
 * the JSON section: {@link #parse} turns it into the JSON tree {@link AccessLogJson#parse} reads, so
 * the rules and messages are those of the one table. Unset fields stay unset.
 */
public final class AccessLogProto {

  private static final JsonNodeFactory JSON = JsonNodeFactory.instance;

  private AccessLogProto() {}

  /** Parses and checks a received section. */
  public static AccessLogJson.Result parse(io.spillway.policy.v1.AccessLog message) {
    return AccessLogJson.parse(toJsonTree(message));
  }

  /** The message as the JSON tree of the policy API; not checked. */
  public static ObjectNode toJsonTree(io.spillway.policy.v1.AccessLog message) {
    Objects.requireNonNull(message, "message");
    ObjectNode root = JSON.objectNode();
    if (message.hasFormat()) {
      root.put("format", message.getFormat());
    }
    if (message.getJsonCount() > 0) {
      ObjectNode json = root.putObject("json");
      message.getJsonList().forEach(f -> json.put(f.getKey(), f.getFormat()));
    }
    if (message.hasFilters()) {
      io.spillway.policy.v1.AccessLogFilters f = message.getFilters();
      ObjectNode filters = root.putObject("filters");
      if (f.hasStatusCode()) {
        comparison(filters.putObject("statusCode"), "value", f.getStatusCode());
      }
      if (f.hasDuration()) {
        comparison(filters.putObject("duration"), "millis", f.getDuration());
      }
      if (f.hasNotHealthCheck()) {
        filters.put("notHealthCheck", f.getNotHealthCheck());
      }
      if (f.hasResponseFlags()) {
        ArrayNode flags = filters.putArray("responseFlags");
        f.getResponseFlags().getFlagsList().forEach(flags::add);
      }
    }
    if (message.hasDestinationFile()) {
      root.putObject("destination").put("file", message.getDestinationFile());
    } else if (!message.getDestinationStream().isEmpty()) {
      root.put("destination", message.getDestinationStream());
    }
    return root;
  }

  private static void comparison(ObjectNode node, String valueKey, io.spillway.policy.v1.AccessLogComparison c) {
    if (!c.getOp().isEmpty()) {
      node.put("op", c.getOp());
    }
    if (c.hasValue()) {
      node.put(valueKey, c.getValue());
    }
  }

  /** The section as the message central sends. */
  public static io.spillway.policy.v1.AccessLog toProto(AccessLogPolicy policy) {
    Objects.requireNonNull(policy, "policy");
    io.spillway.policy.v1.AccessLog.Builder message = io.spillway.policy.v1.AccessLog.newBuilder();
    if (policy.format() != null) {
      message.setFormat(policy.format());
    }
    if (policy.json() != null) {
      policy.json().forEach((k, v) -> message.addJsonBuilder().setKey(k).setFormat(v));
    }
    AccessLogPolicy.Filters f = policy.filters();
    if (f != null) {
      io.spillway.policy.v1.AccessLogFilters.Builder filters = message.getFiltersBuilder();
      if (f.statusCode() != null) {
        filters.setStatusCode(comparison(f.statusCode()));
      }
      if (f.duration() != null) {
        filters.setDuration(comparison(f.duration()));
      }
      if (f.notHealthCheck() != null) {
        filters.setNotHealthCheck(f.notHealthCheck());
      }
      if (f.responseFlags() != null) {
        filters.setResponseFlags(io.spillway.policy.v1.AccessLogResponseFlags.newBuilder().addAllFlags(f.responseFlags()));
      }
    }
    AccessLogPolicy.Destination d = policy.destination();
    if (d != null) {
      if (d.isFile()) {
        message.setDestinationFile(d.file());
      } else {
        message.setDestinationStream(d.stream());
      }
    }
    return message.build();
  }

  private static io.spillway.policy.v1.AccessLogComparison comparison(AccessLogPolicy.Comparison c) {
    io.spillway.policy.v1.AccessLogComparison.Builder b = io.spillway.policy.v1.AccessLogComparison.newBuilder();
    if (c.op() != null) {
      b.setOp(c.op());
    }
    if (c.value() != null) {
      b.setValue(c.value());
    }
    return b.build();
  }
}
