package io.spillway.edge.http.filter;

/** The client's writability, for a filter that streams a response (the router pauses its upstream read). */
@FunctionalInterface
public interface DownstreamWatermarkCallbacks {
  void onDownstreamWritabilityChanged(boolean writable);
}
