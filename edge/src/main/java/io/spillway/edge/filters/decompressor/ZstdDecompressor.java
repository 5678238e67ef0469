package io.spillway.edge.filters.decompressor;

import com.github.luben.zstd.ZstdDecompressCtx;
import com.github.luben.zstd.ZstdException;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufAllocator;
import io.netty.buffer.CompositeByteBuf;
import java.nio.ByteBuffer;

/**
 * One zstd body (RFC 8878) over zstd-jni's streaming decoder ({@code ZSTD_decompressStream}):
 * each part decoded into {@code chunk_size} buffers, within {@link BrotliDecompressor#MAX_INFLATE_RATIO}
 * ({@link InflateBound}; Envoy bounds gzip and brotli so, the edge bounds zstd the same way). Frames
 * that follow one another are decoded in turn. The native context is freed by {@link #end()}.
 */
final class ZstdDecompressor implements StreamDecompressor {
  private final ZstdDecompressCtx ctx = new ZstdDecompressCtx();
  private final int chunkSize;
  private final InflateBound bound = new InflateBound(BrotliDecompressor.MAX_INFLATE_RATIO);
  private Failure failure;
  private boolean ended;

  ZstdDecompressor(int chunkSize) {
    this.chunkSize = chunkSize;
  }

  @Override
  public ByteBuf decompress(ByteBuf input, ByteBufAllocator alloc) {
    if (failure != null) {
      return null;
    }
    int size = input.readableBytes();
    bound.startPart(input.readableBytes());
    CompositeByteBuf out = alloc.compositeBuffer(Integer.MAX_VALUE);
    // zstd-jni reads and writes direct memory only.
    ByteBuf direct = input.isDirect() && input.nioBufferCount() == 1 ? input.retainedSlice() : copyToDirect(input, alloc);
    try {
      ByteBuffer src = direct.nioBuffer(direct.readerIndex(), direct.readableBytes());
      boolean more = true;
      while (failure == null && (src.hasRemaining() || more)) {
        ByteBuf chunk = alloc.directBuffer(chunkSize, chunkSize);
        ByteBuffer dst = chunk.nioBuffer(0, chunkSize);
        int before = src.position();
        ctx.decompressDirectByteBufferStream(dst, src);
        int n = dst.position();
        // The decoder may hold output back only when it filled the chunk.
        more = n == chunkSize;
        if (n == 0) {
          chunk.release();
          if (src.position() == before) {
            break;
          }
          continue;
        }
        chunk.writerIndex(n);
        out.addComponent(true, chunk);
        if (!bound.allows(out.readableBytes())) {
          failure = Failure.INFLATE_RATIO;
        }
      }
      input.skipBytes(size);
    } catch (ZstdException e) {
      failure = Failure.DATA_ERROR;
    } finally {
      direct.release();
    }
    if (failure != null) {
      out.release();
      end();
      return null;
    }
    bound.endPart(out.readableBytes());
    return out;
  }

  private static ByteBuf copyToDirect(ByteBuf input, ByteBufAllocator alloc) {
    ByteBuf copy = alloc.directBuffer(input.readableBytes());
    copy.writeBytes(input, input.readerIndex(), input.readableBytes());
    return copy;
  }

  @Override
  public Failure failure() {
    return failure;
  }

  @Override
  public void end() {
    if (!ended) {
      ended = true;
      ctx.close();
    }
  }
}
