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
 * @param policy the overload policy in force at start: policy file, else HTTP_ADMISSION_* /
 *     HTTP_CLIENT_GUARD_* environment, else built-in defaults
 */
public record ServerOptions(
    int concurrency,
    Duration drainTime,
    String transport,
    long seed,
    String serviceNode,
    String serviceCluster,
    io.spillway.policy.EffectivePolicy policy) {

  public static ServerOptions defaults() {
    return new ServerOptions(Runtime.getRuntime().availableProcessors(), Duration.ofSeconds(600), "auto",
        System.nanoTime(), null, null,
        io.spillway.policy.EffectivePolicy.resolve(null, io.spillway.policy.DeploymentDefaults.builtIn()));
  }

  public ServerOptions withConcurrency(int n) {
    return new ServerOptions(n, drainTime, transport, seed, serviceNode, serviceCluster, policy);
  }

  public ServerOptions withDrainTime(Duration d) {
    return new ServerOptions(concurrency, d, transport, seed, serviceNode, serviceCluster, policy);
  }
}
