package io.spillway.edge.filters.decompressor;

import com.aayushatharva.brotli4j.decoder.DecoderJNI;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufAllocator;
import io.netty.buffer.CompositeByteBuf;
import java.nio.ByteBuffer;

/**
 * One brotli body (RFC 7932) over brotli4j's streaming decoder ({@code DecoderJNI.Wrapper},
 * brotli's {@code BrotliDecoderDecompressStream}): each part pushed through the decoder's input
 * buffer and the output pulled as it comes, within {@link #MAX_INFLATE_RATIO} ({@link InflateBound};
 * Envoy's fixed ratio for brotli). The native state is freed by {@link #end()}.
 */
final class BrotliDecompressor implements StreamDecompressor {
  /** Envoy's brotli decompressor ratio of output to input. */
  static final int MAX_INFLATE_RATIO = 100;

  private final DecoderJNI.Wrapper decoder;
  private final InflateBound bound = new InflateBound(MAX_INFLATE_RATIO);
  private Failure failure;
  private boolean done;
  private boolean ended;

  BrotliDecompressor(int chunkSize) {
    try {
      this.decoder = new DecoderJNI.Wrapper(chunkSize);
    } catch (Exception e) { // the binding's IOException: no native state could be made
      throw new IllegalStateException("cannot create a brotli decoder: " + e.getMessage(), e);
    }
  }

  @Override
  public ByteBuf decompress(ByteBuf input, ByteBufAllocator alloc) {
    if (failure != null) {
      return null;
    }
    bound.startPart(input.readableBytes());
    CompositeByteBuf out = alloc.compositeBuffer(Integer.MAX_VALUE);
    while (failure == null && !done) {
      DecoderJNI.Status status = decoder.getStatus();
      if (status == DecoderJNI.Status.NEEDS_MORE_INPUT) {
        if (!input.isReadable()) {
          break;
        }
        ByteBuffer in = decoder.getInputBuffer();
        in.clear();
        int n = Math.min(in.remaining(), input.readableBytes());
        input.readBytes(in.limit(n));
        decoder.push(n);
      } else if (status == DecoderJNI.Status.OK) {
        decoder.push(0);
      } else if (status == DecoderJNI.Status.NEEDS_MORE_OUTPUT || status == DecoderJNI.Status.DONE) {
        if (decoder.hasOutput()) {
          ByteBuffer pulled = decoder.pull();
          ByteBuf chunk = alloc.buffer(pulled.remaining());
          chunk.writeBytes(pulled);
          out.addComponent(true, chunk);
          if (!bound.allows(out.readableBytes())) {
            failure = Failure.INFLATE_RATIO;
          }
        } else if (status == DecoderJNI.Status.DONE) {
          done = true; // what follows the stream is ignored
          input.skipBytes(input.readableBytes());
        } else {
          decoder.push(0);
        }
      } else {
        failure = Failure.DATA_ERROR;
      }
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
  public Failure failure() {
    return failure;
  }

  @Override
  public void end() {
    if (!ended) {
      ended = true;
      decoder.destroy();
    }
  }
}
