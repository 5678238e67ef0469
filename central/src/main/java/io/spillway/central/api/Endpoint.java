package io.spillway.central.api;

/** One API operation: reads the call, answers a reply or throws {@link ApiException}. */
@FunctionalInterface
public interface Endpoint {

  /** Handles one request. */
  Reply handle(Call call) throws Exception;
}
