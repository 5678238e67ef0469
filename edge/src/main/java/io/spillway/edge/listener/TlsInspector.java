package io.spillway.edge.listener;

import io.netty.buffer.ByteBuf;
import io.netty.channel.ChannelHandlerContext;
import io.netty.handler.codec.ByteToMessageDecoder;
import io.netty.util.concurrent.ScheduledFuture;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

/**
 * Envoy's {@code envoy.filters.listener.tls_inspector}: the first handler after accounting on a
 * listener whose chains match on SNI, ALPN or transport protocol. It peeks at the connection's
 * first bytes without consuming them: a TLS ClientHello (RFC 8446 §4.1.2; the record layer of
 * §5.1, possibly split over several records) gives the server name (RFC 6066 §3) and the offered
 * ALPN protocols (RFC 7301 §3.1); anything else is {@code raw_buffer}. It then hands what it found
 * to the listener, which installs the chosen chain's handlers behind it, and removes itself: the
 * bytes it held go on to those handlers untouched. A ClientHello larger than 64 KiB, or none
 * within {@code listener_filters_timeout}, closes the connection (or, with
 * {@code continue_on_listener_filters_timeout}, goes on without SNI and ALPN).
 */
final class TlsInspector extends ByteToMessageDecoder {

  /** Envoy's limit on the size of a ClientHello it inspects. */
  static final int MAX_CLIENT_HELLO = 64 * 1024;

  /** What the inspection found. */
  record Result(boolean tls, String serverName, List<String> applicationProtocols) {
    static final Result RAW = new Result(false, "", List.of());
  }

  /** Installs the chain for what was found (behind this handler, which then removes itself). */
  interface Decision {
    void decide(ChannelHandlerContext ctx, Result result);
  }

  private final Decision decision;
  private final TlsInspectorStats stats;
  private final long timeoutMillis;
  private final boolean continueOnTimeout;
  private ScheduledFuture<?> timer;
  private boolean done;

  TlsInspector(Decision decision, TlsInspectorStats stats, long timeoutMillis, boolean continueOnTimeout) {
    this.decision = decision;
    this.stats = stats;
    this.timeoutMillis = timeoutMillis;
    this.continueOnTimeout = continueOnTimeout;
  }

  @Override
  public void handlerAdded(ChannelHandlerContext ctx) {
    if (timeoutMillis > 0) {
      timer = ctx.executor().schedule(() -> onTimeout(ctx), timeoutMillis, TimeUnit.MILLISECONDS);
    }
  }

  private void onTimeout(ChannelHandlerContext ctx) {
    if (done) {
      return;
    }
    stats.downstreamPreCxTimeout.inc();
    if (continueOnTimeout) {
      finish(ctx, Result.RAW);
    } else {
      done = true;
      ctx.close();
    }
  }

  @Override
  protected void decode(ChannelHandlerContext ctx, ByteBuf in, List<Object> out) {
    if (done) {
      return;
    }
    int start = in.readerIndex();
    int readable = in.readableBytes();
    if (readable < 1) {
      return;
    }
    if (in.getUnsignedByte(start) != 22) { // not a handshake record
      stats.tlsNotFound.inc();
      finish(ctx, Result.RAW);
      return;
    }
    if (readable < 5) {
      return;
    }
    if (in.getUnsignedByte(start + 1) != 3) {
      stats.tlsNotFound.inc();
      finish(ctx, Result.RAW);
      return;
    }
    // Gather the handshake message from as many handshake records as it spans.
    ByteBuf hello = ctx.alloc().buffer();
    try {
      int offset = start;
      int needed = -1;
      while (true) {
        if (in.writerIndex() - offset < 5) {
          return; // wait for the next record's header
        }
        if (in.getUnsignedByte(offset) != 22) {
          stats.tlsNotFound.inc();
          finish(ctx, Result.RAW);
          return;
        }
        int length = in.getUnsignedShort(offset + 3);
        if (in.writerIndex() - offset - 5 < length) {
          if (offset - start + 5 + length > MAX_CLIENT_HELLO + 5) {
            tooLarge(ctx);
          }
          return; // the record is not complete yet
        }
        hello.writeBytes(in, offset + 5, length);
        offset += 5 + length;
        if (needed < 0 && hello.readableBytes() >= 4) {
          if (hello.getUnsignedByte(0) != 1) { // not a ClientHello
            stats.tlsNotFound.inc();
            finish(ctx, Result.RAW);
            return;
          }
          needed = 4 + hello.getUnsignedMedium(1);
          if (needed > MAX_CLIENT_HELLO) {
            tooLarge(ctx);
            return;
          }
        }
        if (needed >= 0 && hello.readableBytes() >= needed) {
          break;
        }
      }
      Result r = parse(hello.slice(4, needed - 4));
      stats.tlsFound.inc();
      (r.serverName().isEmpty() ? stats.sniNotFound : stats.sniFound).inc();
      (r.applicationProtocols().isEmpty() ? stats.alpnNotFound : stats.alpnFound).inc();
      finish(ctx, r);
    } finally {
      hello.release();
    }
  }

  private void tooLarge(ChannelHandlerContext ctx) {
    stats.clientHelloTooLarge.inc();
    done = true;
    ctx.close();
  }

  private void finish(ChannelHandlerContext ctx, Result result) {
    done = true;
    if (timer != null) {
      timer.cancel(false);
    }
    decision.decide(ctx, result);
    if (ctx.channel().isOpen() && ctx.pipeline().context(this) != null) {
      ctx.pipeline().remove(this); // hands the bytes it holds to the chain's handlers
    }
  }

  @Override
  protected void handlerRemoved0(ChannelHandlerContext ctx) {
    if (timer != null) {
      timer.cancel(false);
    }
  }

  /**
   * The server name and ALPN protocols of a ClientHello body (from {@code legacy_version} on). A
   * malformed body yields what could be read; the TLS handshake that follows will refuse it.
   */
  static Result parse(ByteBuf body) {
    String serverName = "";
    List<String> alpn = new ArrayList<>();
    try {
      int p = body.readerIndex() + 34; // legacy_version, random
      p += 1 + body.getUnsignedByte(p); // legacy_session_id
      p += 2 + body.getUnsignedShort(p); // cipher_suites
      p += 1 + body.getUnsignedByte(p); // legacy_compression_methods
      if (p + 2 > body.writerIndex()) {
        return new Result(true, "", List.of());
      }
      int end = Math.min(body.writerIndex(), p + 2 + body.getUnsignedShort(p));
      p += 2;
      while (p + 4 <= end) {
        int type = body.getUnsignedShort(p);
        int length = body.getUnsignedShort(p + 2);
        int data = p + 4;
        if (data + length > end) {
          break;
        }
        if (type == 0 && length >= 5) { // server_name: list length, name_type, name length, name
          int q = data + 2;
          if (body.getUnsignedByte(q) == 0) {
            int n = body.getUnsignedShort(q + 1);
            if (q + 3 + n <= data + length) {
              serverName = body.toString(q + 3, n, StandardCharsets.US_ASCII).toLowerCase(java.util.Locale.ROOT);
            }
          }
        } else if (type == 16 && length >= 2) { // application_layer_protocol_negotiation
          int q = data + 2;
          int listEnd = Math.min(data + length, q + body.getUnsignedShort(data));
          while (q < listEnd) {
            int n = body.getUnsignedByte(q);
            if (q + 1 + n > listEnd) {
              break;
            }
            alpn.add(body.toString(q + 1, n, StandardCharsets.US_ASCII));
            q += 1 + n;
          }
        }
        p = data + length;
      }
    } catch (IndexOutOfBoundsException e) {
      // Truncated: keep what was read.
    }
    return new Result(true, serverName, List.copyOf(alpn));
  }
}
