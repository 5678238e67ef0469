package io.spillway.edge.http.filter;

/** What every filter instance shares: the end of its stream. */
public interface StreamFilterBase {

  /**
   * The stream is over, however it ended (response sent, reset, client gone, timeout): give back
   * whatever the filter holds. Called exactly once; no other call follows.
   */
  default void onDestroy() {}
}
