package io.spillway.edge.upstream;

import io.netty.buffer.ByteBufAllocator;
import io.netty.channel.Channel;
import io.netty.channel.EventLoop;
import java.util.function.Supplier;

/**
 * Where active health checks run: one event loop of their own (never a worker's), the channel
 * type of the transport in use and the allocator. Every check's connection lives on this loop.
 */
public record HealthCheckLoop(EventLoop loop, Supplier<? extends Channel> channelFactory, ByteBufAllocator allocator) {}
