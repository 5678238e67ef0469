package io.spillway.edge.filters.compressor;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufAllocator;

/**
 * One body's compressor (Envoy's {@code Compression::Compressor}): each part goes in and comes out
 * compressed and flushed, so a streamed response keeps streaming; the last part ends the encoded
 * stream. Holds native memory until {@link #close()}. Used on one stream's worker loop only.
 */
interface StreamCompressor extends AutoCloseable {

  /**
   * Compresses {@code input} (read, not released) into a new buffer from {@code alloc}.
   *
   * @param finish the body ends here: the output ends the encoded stream
   */
  ByteBuf compress(ByteBuf input, boolean finish, ByteBufAllocator alloc);

  /** Gives back the native state; the compressor is not used again. Idempotent. */
  @Override
  void close();
}
