package io.spillway.edge.server;

import io.netty.bootstrap.Bootstrap;
import io.netty.bootstrap.ServerBootstrap;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import io.netty.channel.Channel;
import io.netty.channel.ChannelFutureListener;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import io.netty.channel.ChannelInitializer;
import io.netty.channel.EventLoopGroup;
import io.netty.channel.SimpleChannelInboundHandler;
import io.netty.channel.epoll.EpollChannelOption;
import io.netty.channel.epoll.EpollDomainSocketChannel;
import io.netty.channel.epoll.EpollServerDomainSocketChannel;
import io.netty.channel.epoll.EpollServerSocketChannel;
import io.netty.channel.unix.DomainSocketAddress;
import io.netty.channel.unix.DomainSocketReadMode;
import io.netty.channel.unix.FileDescriptor;
import io.netty.handler.codec.LineBasedFrameDecoder;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.Optional;
import java.util.OptionalInt;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Hot restart, Envoy's way: every edge listens on a Unix domain socket named from its base id and
 * epoch ({@link HotRestartOptions#socketName}); the edge of epoch N connects to epoch N-1's, asks
 * for each listener's socket by address and gets the file descriptor over SCM_RIGHTS, adopts it
 * instead of binding, and once its listeners accept it asks the parent to drain. The parent closes
 * its admin listener (so the child can bind the same admin address), answers, closes its own
 * descriptors of the listening sockets (the kernel sockets stay open: the child holds its own
 * descriptors of them) and drains.
 *
 * <p>Control path only: the child's requests run on the main thread at start-up and wait for the
 * answers there; the parent's side runs on its own single event loop and hands the drain to the
 * main thread. Stats are not handed over: the child's counters start at zero.
 */
final class HotRestart implements AutoCloseable {
  private static final Logger log = LoggerFactory.getLogger(HotRestart.class);
  /** How long the child waits for one answer from its parent. */
  private static final Duration ANSWER_TIMEOUT = Duration.ofSeconds(10);

  /** What a parent edge exposes to its child. */
  interface Parent {
    /** The listening socket bound for this configured address, if there is one and it is open. */
    Optional<FileDescriptor> listenSocket(String address);

    /** Closes the admin listener; blocking, on the main thread. */
    void closeAdmin();

    /** Stops accepting, drains for at most {@code max} and exits. */
    void drainAndExit(Duration max);

    /** The drain time of the parent's own command line. */
    Duration drainTime();

    /** Runs a task on the main thread. */
    void runOnMain(Runnable task);
  }

  private final HotRestartOptions options;
  private final EventLoopGroup loop;
  private Channel server;
  /** Set once the parent was told to drain: from then on listeners are bound fresh. */
  private boolean parentDraining;

  private HotRestart(HotRestartOptions options, EventLoopGroup loop) {
    this.options = options;
    this.loop = loop;
  }

  /**
   * Listens on this epoch's socket, answering children for {@code parent}.
   *
   * @throws IllegalStateException when another edge of the same base id and epoch listens there
   */
  static HotRestart start(HotRestartOptions options, Parent parent) throws InterruptedException {
    HotRestart h = new HotRestart(options, Transport.EPOLL.newGroup(1, "spillway-hot-restart"));
    String name = options.ownSocket();
    var bound = new ServerBootstrap()
        .group(h.loop)
        .channel(EpollServerDomainSocketChannel.class)
        .childHandler(new ChannelInitializer<Channel>() {
          @Override
          protected void initChannel(Channel ch) {
            ch.pipeline().addLast(new LineBasedFrameDecoder(HotRestartMessage.MAX_LENGTH, true, true),
                new ChildRequests(options, parent));
          }
        })
        .bind(new DomainSocketAddress(name)).await();
    if (!bound.isSuccess()) {
      h.loop.shutdownGracefully(0, 0, TimeUnit.MILLISECONDS);
      throw new IllegalStateException("hot restart socket " + HotRestartOptions.printable(name)
          + " is in use (" + bound.cause() + "): another edge runs with --base-id " + options.baseId()
          + " and --restart-epoch " + options.epoch() + "; give independent edges different --base-id values");
    }
    h.server = bound.channel();
    log.info("hot restart: epoch {} listening on {}", options.epoch(), HotRestartOptions.printable(name));
    return h;
  }

  /**
   * The parent's listening socket for a configured address, as an epoll server channel not yet
   * registered; empty without a parent, once it drains, or when it has no listener there.
   */
  Optional<EpollServerSocketChannel> takeListenSocket(String address) throws InterruptedException {
    if (!options.hasParent() || parentDraining) {
      return Optional.empty();
    }
    CompletableFuture<OptionalInt> fd = new CompletableFuture<>();
    Channel ch = connect(ch2 -> ch2.pipeline().addLast(new ChannelInboundHandlerAdapter() {
      @Override
      public void channelRead(ChannelHandlerContext ctx, Object msg) {
        if (msg instanceof FileDescriptor received) {
          fd.complete(OptionalInt.of(received.intValue()));
        }
        ctx.close();
      }

      @Override
      public void channelInactive(ChannelHandlerContext ctx) {
        fd.complete(OptionalInt.empty());
      }
    }), true);
    send(ch, HotRestartMessage.passListenSocket(address));
    OptionalInt received = await(fd, "PASS_LISTEN_SOCKET " + address);
    if (received.isEmpty()) {
      log.info("hot restart: the parent has no listening socket for {}; binding it", address);
      return Optional.empty();
    }
    log.info("hot restart: took over the listening socket for {} (fd {})", address, received.getAsInt());
    return Optional.of(new EpollServerSocketChannel(received.getAsInt()));
  }

  /**
   * Checks that the parent answers and speaks this protocol version; a no-op without a parent.
   *
   * @throws IllegalStateException naming the parent's socket when nothing answers or the versions differ
   */
  void checkParent() throws InterruptedException {
    if (!options.hasParent()) {
      return;
    }
    String version = requestLine(HotRestartMessage.versionRequest());
    if (!version.equals(HotRestartOptions.VERSION)) {
      throw new IllegalStateException("hot restart: the parent on " + HotRestartOptions.printable(options.parentSocket())
          + " speaks " + version + ", this edge " + HotRestartOptions.VERSION + "; restart without --restart-epoch");
    }
  }

  /**
   * Tells the parent to drain and waits until it has closed its admin listener; a no-op without a
   * parent.
   */
  void drainParent() throws InterruptedException {
    if (!options.hasParent() || parentDraining) {
      return;
    }
    parentDraining = true;
    String line = requestLine(HotRestartMessage.drain());
    if (!line.startsWith("OK")) {
      throw new IllegalStateException("hot restart: the parent on " + HotRestartOptions.printable(options.parentSocket())
          + " refused to drain: " + line);
    }
    log.info("hot restart: parent epoch {} drains", options.epoch() - 1);
  }

  /** Sends a request whose answer is one line, and waits for the line. */
  private String requestLine(HotRestartMessage request) throws InterruptedException {
    CompletableFuture<String> answer = new CompletableFuture<>();
    Channel ch = connect(c -> c.pipeline().addLast(new LineBasedFrameDecoder(HotRestartMessage.MAX_LENGTH, true, true),
        new SimpleChannelInboundHandler<ByteBuf>() {
          @Override
          protected void channelRead0(ChannelHandlerContext ctx, ByteBuf line) {
            answer.complete(line.toString(StandardCharsets.US_ASCII));
            ctx.close();
          }

          @Override
          public void channelInactive(ChannelHandlerContext ctx) {
            answer.completeExceptionally(new IllegalStateException("the parent closed without an answer"));
          }
        }), false);
    send(ch, request);
    return await(answer, request.verb().name());
  }

  /** A bind that may fail while the parent still holds the address. */
  interface Bind {
    void run() throws InterruptedException;
  }

  /**
   * Runs {@code bind}, and with a parent retries it every 100 ms for up to {@link #ANSWER_TIMEOUT}
   * while it fails: the admin address is free only once the parent has closed its admin listener.
   */
  void bindAfterParent(Bind bind) throws InterruptedException {
    long deadline = System.nanoTime() + ANSWER_TIMEOUT.toNanos();
    while (true) {
      try {
        bind.run();
        return;
      } catch (InterruptedException e) {
        throw e;
      } catch (Exception e) { // Netty rethrows a bind's checked BindException undeclared
        if (!options.hasParent() || System.nanoTime() > deadline) {
          throw e;
        }
        log.debug("hot restart: bind failed while the parent releases the address ({}); retrying", e.toString());
        Thread.sleep(100);
      }
    }
  }

  /** The edge's side of a parent: its listeners, admin listener, drain and main thread. */
  static Parent parentOf(EdgeServer server) {
    return new Parent() {
      @Override
      public Optional<FileDescriptor> listenSocket(String address) {
        for (io.spillway.edge.listener.Listener l : server.listeners()) {
          var a = l.config().address();
          if (HotRestartMessage.address(a.host(), a.port()).equals(address)
              && l.serverChannel() instanceof EpollServerSocketChannel ch && ch.isOpen()) {
            return Optional.of(ch.fd());
          }
        }
        return Optional.empty();
      }

      @Override
      public void closeAdmin() {
        server.closeAdmin();
      }

      @Override
      public void drainAndExit(Duration max) {
        server.exitAfterDrain(max);
      }

      @Override
      public Duration drainTime() {
        return server.drainTime();
      }

      @Override
      public void runOnMain(Runnable task) {
        server.runOnMain(task);
      }
    };
  }

  boolean hasParent() {
    return options.hasParent();
  }

  int epoch() {
    return options.epoch();
  }

  @Override
  public void close() {
    if (server != null) {
      server.close().awaitUninterruptibly();
    }
    loop.shutdownGracefully(0, 1, TimeUnit.SECONDS);
  }

  private Channel connect(java.util.function.Consumer<Channel> pipeline, boolean fileDescriptors)
      throws InterruptedException {
    String parent = options.parentSocket();
    var connected = new Bootstrap()
        .group(loop)
        .channel(EpollDomainSocketChannel.class)
        .option(EpollChannelOption.DOMAIN_SOCKET_READ_MODE,
            fileDescriptors ? DomainSocketReadMode.FILE_DESCRIPTORS : DomainSocketReadMode.BYTES)
        .handler(new ChannelInitializer<Channel>() {
          @Override
          protected void initChannel(Channel ch) {
            pipeline.accept(ch);
          }
        })
        .connect(new DomainSocketAddress(parent)).await();
    if (!connected.isSuccess()) {
      throw new IllegalStateException("hot restart: --restart-epoch " + options.epoch() + " needs its parent (epoch "
          + (options.epoch() - 1) + ", --base-id " + options.baseId() + ") listening on "
          + HotRestartOptions.printable(parent) + ", and nothing answers there: " + connected.cause());
    }
    return connected.channel();
  }

  private static void send(Channel ch, HotRestartMessage request) {
    ch.writeAndFlush(Unpooled.wrappedBuffer(request.encode()));
  }

  private <T> T await(CompletableFuture<T> answer, String request) throws InterruptedException {
    try {
      return answer.get(ANSWER_TIMEOUT.toMillis(), TimeUnit.MILLISECONDS);
    } catch (ExecutionException e) {
      throw new IllegalStateException("hot restart: " + request + " to " + HotRestartOptions.printable(options.parentSocket())
          + " failed: " + e.getCause().getMessage(), e.getCause());
    } catch (TimeoutException e) {
      throw new IllegalStateException("hot restart: no answer to " + request + " from "
          + HotRestartOptions.printable(options.parentSocket()) + " within " + ANSWER_TIMEOUT.toSeconds() + " s");
    }
  }

  /** The parent's side: one request per connection, answered and closed. */
  private static final class ChildRequests extends SimpleChannelInboundHandler<ByteBuf> {
    private final HotRestartOptions options;
    private final Parent parent;

    ChildRequests(HotRestartOptions options, Parent parent) {
      this.options = options;
      this.parent = parent;
    }

    @Override
    protected void channelRead0(ChannelHandlerContext ctx, ByteBuf frame) {
      HotRestartMessage request;
      try {
        request = HotRestartMessage.decode(frame.toString(StandardCharsets.US_ASCII));
      } catch (IllegalArgumentException e) {
        refuse(ctx, e.getMessage());
        return;
      }
      if (request.verb() != HotRestartMessage.Verb.VERSION && !request.version().equals(HotRestartOptions.VERSION)) {
        refuse(ctx, "version " + request.version() + " is not " + HotRestartOptions.VERSION);
        return;
      }
      switch (request.verb()) {
        case VERSION -> answer(ctx, HotRestartOptions.VERSION);
        case PASS_LISTEN_SOCKET -> {
          Optional<FileDescriptor> fd = parent.listenSocket(request.argument());
          log.info("hot restart: epoch {} asks for {}: {}", options.epoch() + 1, request.argument(),
              fd.isPresent() ? "passed" : "none here");
          if (fd.isPresent()) {
            ctx.writeAndFlush(fd.get()).addListener(ChannelFutureListener.CLOSE);
          } else {
            ctx.close();
          }
        }
        case DRAIN -> parent.runOnMain(() -> {
          parent.closeAdmin();
          Duration max = parent.drainTime().compareTo(options.parentShutdownTime()) < 0
              ? parent.drainTime() : options.parentShutdownTime();
          log.info("hot restart: epoch {} took over; draining for up to {} s", options.epoch() + 1, max.toSeconds());
          answer(ctx, "OK " + options.epoch()).addListener(f -> parent.drainAndExit(max));
        });
      }
    }

    @Override
    public void exceptionCaught(ChannelHandlerContext ctx, Throwable cause) {
      refuse(ctx, cause.getMessage());
    }

    private static void refuse(ChannelHandlerContext ctx, String why) {
      log.warn("hot restart: request refused: {}", why);
      answer(ctx, "ERROR " + why);
    }

    /** Writes one answer line and closes. */
    private static io.netty.channel.ChannelFuture answer(ChannelHandlerContext ctx, String line) {
      return ctx.writeAndFlush(Unpooled.copiedBuffer(line + "\n", StandardCharsets.US_ASCII))
          .addListener(ChannelFutureListener.CLOSE);
    }
  }
}
