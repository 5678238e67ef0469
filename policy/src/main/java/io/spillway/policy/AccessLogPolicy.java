package io.spillway.policy;

import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * The {@code accessLog} section of an edge's policy (SPEC §6): one more access log the edge writes
 * for every request of every HTTP connection manager, beside the bootstrap's {@code access_log}
 * entries (never instead of them). Read and checked by {@link AccessLogJson} along the
 * {@link AccessLogField} table; sent to the edge in the policy xDS resource by
 * {@link AccessLogProto}. Absent components are null; the {@code effective…} accessors give what
 * the edge applies.
 *
 * @param format an Envoy format string; null: {@code json}, or Envoy's default format
 * @param json a JSON format, keys to format strings in order; null: {@code format}
 * @param filters which requests are logged; null: all
 * @param destination where lines go; null: stdout
 */
public record AccessLogPolicy(String format, Map<String, String> json, Filters filters, Destination destination) {

  /** The section's key in the policy API. */
  public static final String SECTION = "accessLog";

  /** Copies the JSON format, keeping its order. */
  public AccessLogPolicy {
    json = json == null ? null : Collections.unmodifiableMap(new LinkedHashMap<>(json));
  }

  /** Where lines go: stdout when absent. */
  public Destination effectiveDestination() {
    return destination != null ? destination : Destination.STDOUT;
  }

  /**
   * The filters; every one that is set must pass (Envoy's {@code and_filter}).
   *
   * @param statusCode the response code compared with a value; null: none
   * @param duration the request's duration compared with milliseconds; null: none
   * @param notHealthCheck true: health check requests are not logged; null: false
   * @param responseFlags log only requests with one of these flags (empty: any flag); null: none
   */
  public record Filters(Comparison statusCode, Comparison duration, Boolean notHealthCheck, List<String> responseFlags) {

    /** Copies the flags. */
    public Filters {
      responseFlags = responseFlags == null ? null : List.copyOf(responseFlags);
    }

    /** Whether no filter is set. */
    public boolean isEmpty() {
      return statusCode == null && duration == null && !Boolean.TRUE.equals(notHealthCheck) && responseFlags == null;
    }
  }

  /**
   * A comparison filter.
   *
   * @param op {@code >=}, {@code <=} or {@code =}; null: {@code >=}
   * @param value the status code, or the duration in milliseconds
   */
  public record Comparison(String op, Integer value) {

    /** The comparison applied: {@code >=} when absent. */
    public String effectiveOp() {
      return op != null ? op : ">=";
    }
  }

  /**
   * Where lines go: a stream, or a file under the edge's access log directory.
   *
   * @param stream {@code stdout} or {@code stderr}; null for a file
   * @param file the relative path of the file; null for a stream
   */
  public record Destination(String stream, String file) {

    /** The standard output. */
    public static final Destination STDOUT = new Destination("stdout", null);
    /** The standard error. */
    public static final Destination STDERR = new Destination("stderr", null);

    /** A file under the access log directory. */
    public static Destination file(String path) {
      return new Destination(null, path);
    }

    /** Whether lines go to a file. */
    public boolean isFile() {
      return file != null;
    }
  }
}
