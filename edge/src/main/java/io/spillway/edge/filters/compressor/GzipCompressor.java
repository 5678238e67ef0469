package io.spillway.edge.filters.compressor;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufAllocator;
import io.spillway.edge.config.CompressorConfig;
import java.nio.ByteBuffer;
import java.util.zip.CRC32;
import java.util.zip.Deflater;

/**
 * gzip (RFC 1952) over the JDK's zlib: a raw deflate stream between the gzip header and its
 * CRC-32 / length trailer. Each part is ended with a sync flush (zlib's {@code Z_SYNC_FLUSH}, as
 * Envoy's {@code Flush} state), so a client can decode everything received so far.
 */
final class GzipCompressor implements StreamCompressor {

  /** ID1 ID2, CM = deflate, FLG = 0, MTIME = 0, XFL = 0, OS = 3 (Unix, as zlib writes it). */
  private static final byte[] HEADER = {0x1f, (byte) 0x8b, 8, 0, 0, 0, 0, 0, 0, 3};

  private final Deflater deflater;
  private final CRC32 crc = new CRC32();
  private final int chunkSize;
  private boolean headerWritten;
  private boolean closed;

  GzipCompressor(CompressorConfig.Gzip config) {
    this.deflater = new Deflater(config.level(), true);
    deflater.setStrategy(switch (config.strategy()) {
      case DEFAULT -> Deflater.DEFAULT_STRATEGY;
      case FILTERED -> Deflater.FILTERED;
      case HUFFMAN_ONLY -> Deflater.HUFFMAN_ONLY;
    });
    this.chunkSize = config.chunkSize();
  }

  @Override
  public ByteBuf compress(ByteBuf input, boolean finish, ByteBufAllocator alloc) {
    ByteBuf out = alloc.buffer(chunkSize);
    try {
      if (!headerWritten) {
        headerWritten = true;
        out.writeBytes(HEADER);
      }
      if (input.isReadable()) {
        for (ByteBuffer part : input.nioBuffers()) {
          crc.update(part.duplicate());
          deflater.setInput(part);
          while (!deflater.needsInput()) {
            deflate(out, Deflater.NO_FLUSH);
          }
        }
      }
      if (finish) {
        deflater.finish();
        while (!deflater.finished()) {
          deflate(out, Deflater.NO_FLUSH);
        }
        out.writeIntLE((int) crc.getValue());
        out.writeIntLE((int) deflater.getBytesRead());
      } else {
        // A sync flush is complete once deflate leaves room in the output.
        while (deflate(out, Deflater.SYNC_FLUSH)) {
          // the output filled up: more is pending
        }
      }
      return out;
    } catch (RuntimeException e) {
      out.release();
      throw e;
    }
  }

  /** One deflate call into {@code out}'s free space; true when it filled that space. */
  private boolean deflate(ByteBuf out, int flush) {
    out.ensureWritable(chunkSize);
    int room = out.writableBytes();
    ByteBuffer target = out.nioBuffer(out.writerIndex(), room);
    int written = deflater.deflate(target, flush);
    out.writerIndex(out.writerIndex() + written);
    return written == room;
  }

  @Override
  public void close() {
    if (!closed) {
      closed = true;
      deflater.end();
    }
  }
}
