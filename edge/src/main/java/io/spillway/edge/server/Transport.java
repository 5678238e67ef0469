package io.spillway.edge.server;

import io.netty.channel.Channel;
import io.netty.channel.EventLoopGroup;
import io.netty.channel.IoHandlerFactory;
import io.netty.channel.MultiThreadIoEventLoopGroup;
import io.netty.channel.ServerChannel;
import io.netty.channel.epoll.Epoll;
import io.netty.channel.epoll.EpollIoHandler;
import io.netty.channel.epoll.EpollServerSocketChannel;
import io.netty.channel.epoll.EpollSocketChannel;
import io.netty.channel.nio.NioIoHandler;
import io.netty.channel.socket.nio.NioServerSocketChannel;
import io.netty.channel.socket.nio.NioSocketChannel;
import io.netty.channel.uring.IoUring;
import io.netty.channel.uring.IoUringIoHandler;
import io.netty.channel.uring.IoUringServerSocketChannel;
import io.netty.channel.uring.IoUringSocketChannel;
import io.netty.util.concurrent.DefaultThreadFactory;
import java.util.function.Supplier;

/**
 * The socket transport: epoll by default on Linux, io_uring when asked for (measured against epoll
 * in docs/benchmarks.md: no gain for the proxy's load, so not the default), NIO where neither
 * native transport loads.
 */
enum Transport {
  EPOLL, IO_URING, NIO;

  /** The requested transport if it loads here, else the best available, with the reason in {@code why}. */
  static Transport choose(String requested, StringBuilder why) {
    String r = requested == null ? "auto" : requested.toLowerCase(java.util.Locale.ROOT);
    if (r.equals("io_uring") || r.equals("io-uring")) {
      if (IoUring.isAvailable()) {
        return IO_URING;
      }
      why.append("io_uring unavailable (").append(IoUring.unavailabilityCause()).append("); ");
    }
    if (r.equals("nio")) {
      return NIO;
    }
    if (Epoll.isAvailable()) {
      return EPOLL;
    }
    why.append("epoll unavailable (").append(Epoll.unavailabilityCause()).append(")");
    return NIO;
  }

  IoHandlerFactory ioHandlerFactory() {
    return switch (this) {
      case EPOLL -> EpollIoHandler.newFactory();
      case IO_URING -> IoUringIoHandler.newFactory();
      case NIO -> NioIoHandler.newFactory();
    };
  }

  EventLoopGroup newGroup(int threads, String name) {
    return new MultiThreadIoEventLoopGroup(threads, new DefaultThreadFactory(name, true), ioHandlerFactory());
  }

  Supplier<? extends ServerChannel> serverChannels() {
    return switch (this) {
      case EPOLL -> EpollServerSocketChannel::new;
      case IO_URING -> IoUringServerSocketChannel::new;
      case NIO -> NioServerSocketChannel::new;
    };
  }

  Supplier<? extends Channel> clientChannels() {
    return switch (this) {
      case EPOLL -> EpollSocketChannel::new;
      case IO_URING -> IoUringSocketChannel::new;
      case NIO -> NioSocketChannel::new;
    };
  }
}
