package io.spillway.edge.stats;

import java.util.Objects;

/**
 * One Prometheus label of a stat, such as {@code envoy_cluster_name="backend"}.
 *
 * <p>The constants are the tag names Envoy's default tag extraction produces; use them with
 * {@link Scope#taggedScope(String, String, String)}.
 *
 * @param name the label name, {@code [a-zA-Z_][a-zA-Z0-9_]*}
 * @param value the label value, any text (escaped when rendered)
 */
public record Tag(String name, String value) {

  private static final String ENVOY_PREFIX = "envoy_";

  /** {@code cluster.<name>.}: {@code envoy_cluster_name}. */
  public static final String CLUSTER_NAME = "envoy_cluster_name";
  /** {@code http.<stat_prefix>.}: {@code envoy_http_conn_manager_prefix}. */
  public static final String HTTP_CONN_MANAGER_PREFIX = "envoy_http_conn_manager_prefix";
  /** {@code listener.<address>.}: {@code envoy_listener_address}. */
  public static final String LISTENER_ADDRESS = "envoy_listener_address";
  /** {@code <stat_prefix>.http_local_rate_limit.}: {@code envoy_local_http_ratelimit_prefix}. */
  public static final String LOCAL_HTTP_RATELIMIT_PREFIX = "envoy_local_http_ratelimit_prefix";
  /** {@code *_rq_<class>xx}: {@code envoy_response_code_class}. */
  public static final String RESPONSE_CODE_CLASS = "envoy_response_code_class";
  /** {@code *_rq_<code>}: {@code envoy_response_code}. */
  public static final String RESPONSE_CODE = "envoy_response_code";

  public Tag {
    PrometheusNames.requireLabelName(name);
    Objects.requireNonNull(value, "tag value");
  }

  /**
   * The name as Envoy gives it to tagged sinks such as DogStatsD: Envoy's default tag names are
   * dotted ({@code envoy.cluster_name}) and only Prometheus renders the dot as {@code _}, so a
   * leading {@code envoy_} becomes {@code envoy.}. Our own tags ({@code tier}) are unchanged.
   */
  public String envoyName() {
    return name.startsWith(ENVOY_PREFIX) ? "envoy." + name.substring(ENVOY_PREFIX.length()) : name;
  }
}
