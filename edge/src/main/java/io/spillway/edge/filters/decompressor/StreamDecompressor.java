package io.spillway.edge.filters.decompressor;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufAllocator;

/**
 * A decoder for one body, fed part by part on one worker loop. Each part may decode to at most a
 * bounded multiple of its own size; past it, or on input that cannot be decoded, the decoder stops
 * for good.
 */
interface StreamDecompressor {

  /** Why decoding stopped. */
  enum Failure {
    /** The part decoded to more than the allowed multiple of its size (a decompression bomb). */
    INFLATE_RATIO,
    /** Input that is not in the coding, or is corrupt. */
    DATA_ERROR
  }

  /**
   * Decodes what {@code input} holds (the caller still owns and releases it) and returns what it
   * decoded to, possibly nothing; null once decoding failed ({@link #failure()}).
   */
  ByteBuf decompress(ByteBuf input, ByteBufAllocator alloc);

  /** Why decoding stopped, or null while it has not. */
  Failure failure();

  /** Frees the decoder's (native) memory; idempotent, and the decoder is unusable afterwards. */
  void end();
}
