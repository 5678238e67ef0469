package io.spillway.edge.router;

/**
 * What route matching reads from a request: the authority, the path split from the query, and
 * header lookup. Implemented over Netty's headers by the HTTP layer; matching never allocates
 * beyond the query parsing a query matcher needs.
 */
public interface RequestView {

  /** Host or :authority, as received (may include a port); never null, may be empty. */
  String authority();

  /** The path without the query string. */
  String path();

  /** The raw query string without '?', or empty. */
  String query();

  /** The first value of a header (lower-case name; ":method", ":authority", ":path", ":scheme" work), or null. */
  String header(String lowerCaseName);

  /**
   * All values of a header joined with {@code ,} (what Envoy's header matchers compare), or null:
   * a header sent twice matches as the one comma-separated field RFC 9110 §5.3 makes it.
   */
  default String headerValues(String lowerCaseName) {
    return header(lowerCaseName);
  }
}
