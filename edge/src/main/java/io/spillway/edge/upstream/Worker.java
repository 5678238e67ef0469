package io.spillway.edge.upstream;

import io.netty.buffer.ByteBufAllocator;
import io.netty.channel.Channel;
import io.netty.channel.EventLoop;
import io.spillway.edge.guard.GuardLoop;
import java.util.random.RandomGenerator;
import java.util.function.Supplier;

/**
 * One worker: an event loop plus what the hot path on it owns (its random source, its index into
 * per-worker arrays such as {@link Host}'s pools). Everything reachable only through a worker is
 * touched only from that worker's loop.
 *
 * @param index 0..N-1
 * @param loop the worker's event loop
 * @param random the worker's random source (load balancing, jitter, weighted clusters)
 * @param channelFactory creates client channels of the transport in use (epoll, io_uring or NIO)
 * @param allocator the pooled allocator pinned for the edge
 * @param guardLoop the loop as the outbound guard sees it, adapted once (not per request)
 */
public record Worker(
    int index,
    EventLoop loop,
    RandomGenerator random,
    Supplier<? extends Channel> channelFactory,
    ByteBufAllocator allocator,
    GuardLoop guardLoop) {

  /** A worker on {@code loop}, with its guard adapter. */
  public Worker(int index, EventLoop loop, RandomGenerator random, Supplier<? extends Channel> channelFactory,
      ByteBufAllocator allocator) {
    this(index, loop, random, channelFactory, allocator, GuardLoop.of(loop));
  }
}
