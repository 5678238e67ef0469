package io.spillway.edge.upstream;

/**
 * Decides, on a worker's loop, whether a pool may open a new upstream connection now (the
 * overload manager's {@code connection_pool_new_connection} shed point). Requests that needed the
 * connection fail as an overflow (503, flag UO).
 */
@FunctionalInterface
public interface ConnectionGate {
  ConnectionGate OPEN = worker -> true;

  boolean allowNewConnection(Worker worker);
}
