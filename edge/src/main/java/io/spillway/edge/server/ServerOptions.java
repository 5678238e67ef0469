package io.spillway.edge.server;

import java.time.Duration;

/**
 * Process options from the command line.
 *
 * @param concurrency worker event loops
 * @param drainTime how long a drain waits for in-flight requests
 * @param transport "auto" (epoll, else NIO), "epoll", "io_uring" or "nio"
 * @param seed seeds every worker's random source (load balancing, jitter); fixed in tests
 * @param serviceNode overrides {@code node.id}
 * @param serviceCluster overrides {@code node.cluster}
 */
public record ServerOptions(
    int concurrency,
    Duration drainTime,
    String transport,
    long seed,
    String serviceNode,
    String serviceCluster) {

  public static ServerOptions defaults() {
    return new ServerOptions(Runtime.getRuntime().availableProcessors(), Duration.ofSeconds(600), "auto",
        System.nanoTime(), null, null);
  }

  public ServerOptions withConcurrency(int n) {
    return new ServerOptions(n, drainTime, transport, seed, serviceNode, serviceCluster);
  }

  public ServerOptions withDrainTime(Duration d) {
    return new ServerOptions(concurrency, d, transport, seed, serviceNode, serviceCluster);
  }
}
