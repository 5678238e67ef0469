package io.spillway.edge.config;

/**
 * A bootstrap or resource that cannot be loaded: the first rule it breaks, with the path of the
 * offending field in Envoy's proto vocabulary (snake_case names, {@code [i]} for list elements,
 * {@code ["key"]} for map entries, the fields of a {@code typed_config} directly after it).
 *
 * <p>The message reads {@code <path>: <rule broken>}, for example
 * {@code static_resources.clusters[0].lb_policy: CLUSTER_PROVIDED is not supported}. Problems with the whole
 * document (unreadable file, invalid YAML) have an empty path and the message is just the rule.
 */
public final class ConfigException extends Exception {

  private final String path;
  private final String rule;

  /** A problem at {@code path} (empty for the whole document). */
  public ConfigException(String path, String rule) {
    this(path, rule, null);
  }

  /** A problem at {@code path}, caused by {@code cause}. */
  public ConfigException(String path, String rule, Throwable cause) {
    super(path.isEmpty() ? rule : path + ": " + rule, cause);
    this.path = path;
    this.rule = rule;
  }

  ConfigException(FieldPath path, String rule) {
    this(path.toString(), rule, null);
  }

  ConfigException(FieldPath path, String rule, Throwable cause) {
    this(path.toString(), rule, cause);
  }

  /** The offending field, e.g. {@code static_resources.clusters[0].lb_policy}; empty for the document. */
  public String path() {
    return path;
  }

  /** The rule broken, without the path. */
  public String rule() {
    return rule;
  }
}
