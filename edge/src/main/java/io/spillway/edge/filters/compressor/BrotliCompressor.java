package io.spillway.edge.filters.compressor;

import com.aayushatharva.brotli4j.Brotli4jLoader;
import com.aayushatharva.brotli4j.encoder.Encoder;
import com.aayushatharva.brotli4j.encoder.EncoderJNI;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufAllocator;
import io.spillway.edge.config.CompressorConfig;
import java.nio.ByteBuffer;

/**
 * brotli (RFC 7932) over brotli4j's streaming encoder ({@code EncoderJNI.Wrapper}, brotli's
 * {@code BrotliEncoderCompressStream}): one stream per body, each part flushed
 * ({@code BROTLI_OPERATION_FLUSH}, so a client can decode everything received so far), the stream
 * ended on the last part ({@code BROTLI_OPERATION_FINISH}). The encoder's native state is freed by
 * {@link #close()}. The native library is loaded when the filter's factory is built
 * ({@link #loadNative()}), not on a worker.
 */
final class BrotliCompressor implements StreamCompressor {

  private final EncoderJNI.Wrapper encoder;
  private final int chunkSize;
  private boolean closed;

  BrotliCompressor(CompressorConfig.Brotli config) {
    this(encoder(config), config.chunkSize());
  }

  /** @param encoder a fresh encoder, which this compressor destroys when it closes */
  BrotliCompressor(EncoderJNI.Wrapper encoder, int chunkSize) {
    this.encoder = encoder;
    this.chunkSize = chunkSize;
  }

  /**
   * Loads (and, the first time, extracts to {@code java.io.tmpdir}) brotli4j's native library:
   * control path only.
   *
   * @throws IllegalStateException when no native for this platform is packaged or it does not load
   */
  static void loadNative() {
    if (!Brotli4jLoader.isAvailable()) {
      Throwable cause = Brotli4jLoader.getUnavailabilityCause();
      throw new IllegalStateException("the brotli compressor needs brotli4j's native library, which is packaged"
          + " for linux-x86_64, linux-aarch64, osx-x86_64 and osx-aarch64 and could not be loaded here ("
          + System.getProperty("os.name") + " " + System.getProperty("os.arch") + "): "
          + (cause == null ? "unknown cause" : cause.getMessage()), cause);
    }
  }

  @Override
  public ByteBuf compress(ByteBuf input, boolean finish, ByteBufAllocator alloc) {
    ByteBuf out = alloc.buffer(chunkSize);
    try {
      int index = input.readerIndex();
      int end = index + input.readableBytes();
      while (index < end) {
        ByteBuffer in = encoder.getInputBuffer();
        in.clear();
        int n = Math.min(in.remaining(), end - index);
        in.limit(n);
        input.getBytes(index, in);
        index += n;
        run(EncoderJNI.Operation.PROCESS, n, out);
      }
      run(finish ? EncoderJNI.Operation.FINISH : EncoderJNI.Operation.FLUSH, 0, out);
      return out;
    } catch (RuntimeException e) {
      out.release();
      throw e;
    }
  }

  /** Pushes {@code length} input bytes with {@code op}, then drains the encoder until it wants more input. */
  private void run(EncoderJNI.Operation op, int length, ByteBuf out) {
    encoder.push(op, length);
    while (true) {
      if (!encoder.isSuccess()) {
        throw new IllegalStateException("the brotli encoder failed");
      }
      if (encoder.hasMoreOutput()) {
        out.writeBytes(encoder.pull());
      } else if (encoder.hasRemainingInput()) {
        encoder.push(op, 0);
      } else {
        return;
      }
    }
  }

  @Override
  public void close() {
    if (!closed) {
      closed = true;
      encoder.destroy();
    }
  }

  private static EncoderJNI.Wrapper encoder(CompressorConfig.Brotli config) {
    Encoder.Mode mode = switch (config.mode()) {
      case GENERIC -> Encoder.Mode.GENERIC;
      case TEXT -> Encoder.Mode.TEXT;
      case FONT -> Encoder.Mode.FONT;
    };
    try {
      // The input buffer is as large as an output chunk: input is fed through it in pieces that size.
      return new EncoderJNI.Wrapper(config.chunkSize(), config.quality(), config.windowBits(), mode);
    } catch (Exception e) { // the binding's IOException: no native state could be made
      throw new IllegalStateException("cannot create a brotli encoder: " + e.getMessage(), e);
    }
  }
}
