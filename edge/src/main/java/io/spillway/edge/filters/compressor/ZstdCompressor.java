package io.spillway.edge.filters.compressor;

import com.github.luben.zstd.EndDirective;
import com.github.luben.zstd.ZstdCompressCtx;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufAllocator;
import io.spillway.edge.config.CompressorConfig;
import java.nio.ByteBuffer;

/**
 * zstd (RFC 8878) over zstd-jni's streaming context: one frame per body, each part flushed
 * ({@code ZSTD_e_flush}), the frame ended on the last part ({@code ZSTD_e_end}). The native
 * library is loaded when the filter's factory is built ({@link #loadNative()}), not on a worker.
 */
final class ZstdCompressor implements StreamCompressor {

  /** No input: what the flush and end calls read. Capacity 0, so nothing about it ever changes. */
  private static final ByteBuffer NO_INPUT = ByteBuffer.allocateDirect(0);

  private final ZstdCompressCtx ctx = new ZstdCompressCtx();
  private final int chunkSize;
  private boolean closed;

  ZstdCompressor(CompressorConfig.Zstd config) {
    ctx.setLevel(config.level());
    ctx.setChecksum(config.checksum());
    if (config.strategy() != 0) {
      ctx.setStrategy(config.strategy());
    }
    this.chunkSize = config.chunkSize();
  }

  /**
   * Loads (and, the first time, extracts to {@code java.io.tmpdir}) the native library: control
   * path only.
   *
   * @throws IllegalStateException when this platform or temporary directory cannot load it
   */
  static void loadNative() {
    try {
      com.github.luben.zstd.util.Native.load();
    } catch (UnsatisfiedLinkError e) {
      throw new IllegalStateException("the zstd compressor needs zstd-jni's native library, which could not be"
          + " loaded here: " + e.getMessage(), e);
    }
  }

  @Override
  public ByteBuf compress(ByteBuf input, boolean finish, ByteBufAllocator alloc) {
    ByteBuf out = alloc.directBuffer(chunkSize);
    ByteBuf copy = null;
    try {
      ByteBuf source = input;
      if (input.isReadable() && (!input.isDirect() || input.nioBufferCount() != 1)) {
        // The native stream reads direct memory only.
        copy = alloc.directBuffer(input.readableBytes());
        copy.writeBytes(input, input.readerIndex(), input.readableBytes());
        source = copy;
      }
      if (source.isReadable()) {
        ByteBuffer src = source.nioBuffer();
        while (src.hasRemaining()) {
          step(out, src, EndDirective.CONTINUE);
        }
      }
      EndDirective end = finish ? EndDirective.END : EndDirective.FLUSH;
      while (!step(out, NO_INPUT, end)) {
        // more output is pending
      }
      return out;
    } catch (RuntimeException e) {
      out.release();
      throw e;
    } finally {
      if (copy != null) {
        copy.release();
      }
    }
  }

  /** One streaming call into {@code out}'s free space; true when zstd has nothing more to write for it. */
  private boolean step(ByteBuf out, ByteBuffer src, EndDirective directive) {
    out.ensureWritable(chunkSize);
    ByteBuffer target = out.nioBuffer(out.writerIndex(), out.writableBytes());
    boolean done = ctx.compressDirectByteBufferStream(target, src, directive);
    out.writerIndex(out.writerIndex() + target.position());
    return done;
  }

  @Override
  public void close() {
    if (!closed) {
      closed = true;
      ctx.close();
    }
  }
}
