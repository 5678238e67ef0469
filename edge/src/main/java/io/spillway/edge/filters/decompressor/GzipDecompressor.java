package io.spillway.edge.filters.decompressor;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufAllocator;
import io.netty.buffer.CompositeByteBuf;
import io.spillway.edge.config.DecompressorConfig;
import java.nio.ByteBuffer;
import java.util.zip.CRC32;
import java.util.zip.DataFormatException;
import java.util.zip.Inflater;

/**
 * One gzip body (RFC 1952) decoded part by part over the JDK's zlib: the member header (with its
 * optional extra field, name, comment and header CRC) read as it arrives, the raw deflate stream
 * inflated into {@code chunk_size} buffers, the CRC-32 and length trailer checked, as zlib checks
 * them for Envoy's {@code inflateInit2(window_bits + 16)}. Bytes after the first member are
 * ignored, as by Envoy.
 *
 * <p>The output is bounded by {@code max_inflate_ratio} ({@link InflateBound}): past it the decoder
 * stops, so what one part costs is bounded. A corrupt stream stops it too. Lives on one worker loop.
 */
final class GzipDecompressor implements StreamDecompressor {

  private enum Stage { FIXED_HEADER, EXTRA_LENGTH, EXTRA, NAME, COMMENT, HEADER_CRC, BODY, TRAILER, DONE }

  private static final int FHCRC = 2;
  private static final int FEXTRA = 4;
  private static final int FNAME = 8;
  private static final int FCOMMENT = 16;
  private static final int RESERVED = 0xe0;

  private final Inflater inflater = new Inflater(true);
  private final CRC32 crc = new CRC32();
  private final int chunkSize;
  private final InflateBound bound;
  private Stage stage = Stage.FIXED_HEADER;
  /** Bytes read of the current fixed-size header piece or trailer. */
  private int count;
  private int flags;
  private int extraLength;
  private final byte[] trailer = new byte[8];
  private Failure failure;
  private boolean ended;

  GzipDecompressor(DecompressorConfig.Gzip config) {
    this.chunkSize = config.chunkSize();
    this.bound = new InflateBound(config.maxInflateRatio());
  }

  @Override
  public Failure failure() {
    return failure;
  }

  @Override
  public ByteBuf decompress(ByteBuf input, ByteBufAllocator alloc) {
    if (failure != null) {
      return null;
    }
    bound.startPart(input.readableBytes());
    CompositeByteBuf out = alloc.compositeBuffer(Integer.MAX_VALUE);
    try {
      while (input.isReadable() && stage != Stage.DONE && failure == null) {
        if (stage == Stage.BODY) {
          inflate(input, out, alloc);
        } else if (stage == Stage.TRAILER) {
          readTrailer(input);
        } else {
          readHeader(input.readUnsignedByte());
        }
      }
    } catch (DataFormatException e) {
      failure = Failure.DATA_ERROR;
    }
    if (failure != null) {
      out.release();
      end();
      return null;
    }
    bound.endPart(out.readableBytes());
    return out;
  }

  @Override
  public void end() {
    if (!ended) {
      ended = true;
      inflater.end();
    }
  }

  private void inflate(ByteBuf input, CompositeByteBuf out, ByteBufAllocator alloc)
      throws DataFormatException {
    ByteBuffer in = input.nioBuffer(input.readerIndex(), input.readableBytes());
    int start = in.position();
    inflater.setInput(in);
    try {
      // A full chunk may leave output pending inside zlib even when the input is all read.
      boolean full = true;
      while (!inflater.finished() && (full || !inflater.needsInput())) {
        if (inflater.needsDictionary()) {
          throw new DataFormatException("a preset dictionary is not gzip");
        }
        int before = in.position();
        ByteBuf chunk = alloc.buffer(chunkSize, chunkSize);
        int n = inflater.inflate(chunk.nioBuffer(0, chunkSize));
        full = n == chunkSize;
        if (n == 0) {
          chunk.release();
          if (in.position() == before) {
            break; // no progress: zlib wants more input
          }
          continue;
        }
        chunk.writerIndex(n);
        crc.update(chunk.nioBuffer(0, n));
        out.addComponent(true, chunk);
        if (!bound.allows(out.readableBytes())) {
          failure = Failure.INFLATE_RATIO;
          break;
        }
      }
    } finally {
      input.skipBytes(in.position() - start);
      inflater.setInput(ByteBuffer.allocate(0)); // drop the reference to the part's memory
    }
    if (inflater.finished() && failure == null) {
      stage = Stage.TRAILER;
      count = 0;
    }
  }

  private void readTrailer(ByteBuf input) {
    while (input.isReadable() && count < trailer.length) {
      trailer[count++] = input.readByte();
    }
    if (count < trailer.length) {
      return;
    }
    long expectedCrc = littleEndian(0);
    long expectedSize = littleEndian(4);
    if (expectedCrc != crc.getValue() || expectedSize != (inflater.getBytesWritten() & 0xffffffffL)) {
      failure = Failure.DATA_ERROR;
      return;
    }
    stage = Stage.DONE;
    input.skipBytes(input.readableBytes()); // anything after the first member is ignored, as by zlib
  }

  private long littleEndian(int at) {
    return (trailer[at] & 0xffL) | (trailer[at + 1] & 0xffL) << 8 | (trailer[at + 2] & 0xffL) << 16
        | (trailer[at + 3] & 0xffL) << 24;
  }

  /** One header byte: ID1 ID2 CM FLG MTIME(4) XFL OS, then the optional parts FLG announces. */
  private void readHeader(int b) {
    switch (stage) {
      case FIXED_HEADER -> {
        if ((count == 0 && b != 0x1f) || (count == 1 && b != 0x8b) || (count == 2 && b != 8)
            || (count == 3 && (b & RESERVED) != 0)) {
          failure = Failure.DATA_ERROR;
          return;
        }
        if (count == 3) {
          flags = b;
        }
        if (++count == 10) {
          count = 0;
          nextOptional(Stage.FIXED_HEADER);
        }
      }
      case EXTRA_LENGTH -> {
        extraLength |= b << (8 * count);
        if (++count == 2) {
          count = 0;
          if (extraLength == 0) {
            nextOptional(Stage.EXTRA);
          } else {
            stage = Stage.EXTRA;
          }
        }
      }
      case EXTRA -> {
        if (++count == extraLength) {
          count = 0;
          nextOptional(Stage.EXTRA);
        }
      }
      case NAME, COMMENT -> {
        if (b == 0) {
          nextOptional(stage);
        }
      }
      case HEADER_CRC -> {
        if (++count == 2) {
          count = 0;
          stage = Stage.BODY;
        }
      }
      default -> throw new IllegalStateException(stage.name());
    }
  }

  /** The header part that follows {@code done}, by the flags. */
  private void nextOptional(Stage done) {
    Stage next = Stage.BODY;
    if (done.ordinal() < Stage.EXTRA_LENGTH.ordinal() && (flags & FEXTRA) != 0) {
      next = Stage.EXTRA_LENGTH;
    } else if (done.ordinal() < Stage.NAME.ordinal() && (flags & FNAME) != 0) {
      next = Stage.NAME;
    } else if (done.ordinal() < Stage.COMMENT.ordinal() && (flags & FCOMMENT) != 0) {
      next = Stage.COMMENT;
    } else if (done.ordinal() < Stage.HEADER_CRC.ordinal() && (flags & FHCRC) != 0) {
      next = Stage.HEADER_CRC;
    }
    stage = next;
  }
}
