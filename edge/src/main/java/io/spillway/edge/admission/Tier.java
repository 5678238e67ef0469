package io.spillway.edge.admission;

/**
 * How important a request is to inbound admission (SPEC §3.2). A request is admitted while the
 * edge's in-flight count is below its tier's share of the learned limit, so the top of the limit
 * stays free for more important work.
 */
public enum Tier {
  /** A new entry (e.g. a new login): most expensive, refused first; may use {@code startShare}. */
  START("start"),
  /** Work already started (code exchange, logout): refused next; may use {@code continuationShare}. */
  CONTINUATION("continuation"),
  /** Proxied calls to the customer's API, and every unclassified route: may use the whole limit. */
  PROXY("proxy"),
  /** Health, metrics, configuration sync, back-channel logout: never counted, never refused. */
  EXEMPT("exempt");

  /** The route metadata key (flattened) the edge reads a route's tier from. */
  public static final String METADATA_KEY = "spillway.admission.tier";

  private final String metadataName;

  Tier(String metadataName) {
    this.metadataName = metadataName;
  }

  /** The spelling in route metadata and in the {@code tier} label: {@code start}, {@code proxy}, ... */
  public String metadataName() {
    return metadataName;
  }

  /**
   * The tier spelled in route metadata ({@code start}, {@code continuation}, {@code proxy},
   * {@code exempt}, exact lower case); {@link #PROXY} for null or anything else, since an
   * unclassified route is a proxied call.
   */
  public static Tier fromMetadata(String value) {
    if (value == null) {
      return PROXY;
    }
    return switch (value) {
      case "start" -> START;
      case "continuation" -> CONTINUATION;
      case "exempt" -> EXEMPT;
      default -> PROXY;
    };
  }
}
