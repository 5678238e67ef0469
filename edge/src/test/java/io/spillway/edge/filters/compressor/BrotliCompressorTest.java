package io.spillway.edge.filters.compressor;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.aayushatharva.brotli4j.Brotli4jLoader;
import com.aayushatharva.brotli4j.decoder.DecoderJNI;
import com.aayushatharva.brotli4j.encoder.Encoder;
import com.aayushatharva.brotli4j.encoder.EncoderJNI;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufAllocator;
import io.netty.buffer.ByteBufUtil;
import io.netty.buffer.CompositeByteBuf;
import io.netty.buffer.Unpooled;
import io.netty.buffer.UnpooledByteBufAllocator;
import io.spillway.edge.config.CompressorConfig;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.SplittableRandom;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * The brotli compressor on its own, decoded by brotli4j's decoder: one part, many parts each
 * decodable up to its flush, parts larger than the encoder's input buffer, a composite part, an
 * empty body, Envoy's field values reaching the encoder, and the native encoder destroyed when
 * the compressor closes, whether the stream finished or not.
 */
class BrotliCompressorTest {

  private static final String TEXT = "The quick brown fox jumps over the lazy dog. ".repeat(40);
  private static final CompressorConfig.Brotli DEFAULTS =
      new CompressorConfig.Brotli(3, CompressorConfig.BrotliMode.GENERIC, 18, 4096);

  private final ByteBufAllocator alloc = new UnpooledByteBufAllocator(true);
  private final List<ByteBuf> buffers = new ArrayList<>();

  @BeforeAll
  static void loadNative() {
    BrotliCompressor.loadNative();
  }

  @AfterEach
  void everyBufferWasGivenBack() {
    for (ByteBuf b : buffers) {
      assertThat(b.refCnt()).as("a buffer the test made or the compressor returned").isZero();
    }
  }

  /** What a decoder makes of {@code encoded}: the bytes it can give and whether the stream ended. */
  record Decoded(byte[] bytes, boolean done) {
    String text() {
      return new String(bytes, StandardCharsets.UTF_8);
    }
  }

  /** Decodes what a client has received so far: a flushed prefix gives all its bytes, not yet done. */
  static Decoded decode(byte[] encoded) throws IOException {
    DecoderJNI.Wrapper d = new DecoderJNI.Wrapper(Math.max(1, encoded.length));
    ByteArrayOutputStream out = new ByteArrayOutputStream();
    try {
      d.getInputBuffer().put(encoded);
      d.push(encoded.length);
      while (true) {
        switch (d.getStatus()) {
          case NEEDS_MORE_OUTPUT -> write(out, d.pull());
          case OK -> d.push(0);
          case NEEDS_MORE_INPUT, DONE -> {
            while (d.hasOutput()) {
              write(out, d.pull());
            }
            return new Decoded(out.toByteArray(), d.getStatus() == DecoderJNI.Status.DONE);
          }
          default -> throw new IOException("not a brotli stream: " + d.getStatus());
        }
      }
    } finally {
      d.destroy();
    }
  }

  private static void write(ByteArrayOutputStream out, ByteBuffer b) {
    byte[] bytes = new byte[b.remaining()];
    b.get(bytes);
    out.writeBytes(bytes);
  }

  private ByteBuf part(byte[] bytes) {
    ByteBuf b = alloc.directBuffer(bytes.length).writeBytes(bytes);
    buffers.add(b);
    return b;
  }

  private byte[] compress(StreamCompressor c, ByteBuf input, boolean finish) {
    ByteBuf out = c.compress(input, finish, alloc);
    buffers.add(out);
    byte[] bytes = ByteBufUtil.getBytes(out);
    out.release();
    return bytes;
  }

  /** An encoder whose destruction the test sees. */
  private static final class CountingEncoder extends EncoderJNI.Wrapper {
    int destroyed;

    CountingEncoder() throws IOException {
      super(4096, 3, 18, Encoder.Mode.GENERIC);
    }

    @Override
    public void destroy() {
      destroyed++;
      super.destroy();
    }
  }

  @Test
  void onePartDecodesToTheInput() throws IOException {
    try (BrotliCompressor c = new BrotliCompressor(DEFAULTS)) {
      ByteBuf in = part(TEXT.getBytes(StandardCharsets.UTF_8));
      byte[] encoded = compress(c, in, true);
      assertThat(in.readableBytes()).as("the input is read, not consumed").isEqualTo(TEXT.length());
      in.release();
      assertThat(encoded.length).isLessThan(TEXT.length() / 4);
      Decoded d = decode(encoded);
      assertThat(d.done()).isTrue();
      assertThat(d.text()).isEqualTo(TEXT);
    }
  }

  @Test
  void eachFlushedPartDecodesToEverythingSoFar() throws IOException {
    try (BrotliCompressor c = new BrotliCompressor(DEFAULTS)) {
      ByteArrayOutputStream received = new ByteArrayOutputStream();
      StringBuilder sent = new StringBuilder();
      for (int i = 1; i <= 5; i++) {
        String text = "event " + i + ": " + "data ".repeat(i * 7) + "\n";
        ByteBuf in = part(text.getBytes(StandardCharsets.UTF_8));
        received.writeBytes(compress(c, in, false));
        in.release();
        sent.append(text);
        Decoded d = decode(received.toByteArray());
        assertThat(d.text()).as("after part " + i).isEqualTo(sent.toString());
        assertThat(d.done()).as("the stream is not ended by a flush").isFalse();
      }
      received.writeBytes(compress(c, Unpooled.EMPTY_BUFFER, true));
      Decoded d = decode(received.toByteArray());
      assertThat(d.done()).isTrue();
      assertThat(d.text()).isEqualTo(sent.toString());
    }
  }

  @Test
  void partsLargerThanTheInputBufferAndCompositePartsRoundTrip() throws IOException {
    byte[] big = new byte[300_000];
    SplittableRandom random = new SplittableRandom(7);
    for (int i = 0; i < big.length; i++) {
      big[i] = (byte) ('a' + random.nextInt(6)); // compressible, not trivially so
    }
    try (BrotliCompressor c = new BrotliCompressor(
        new CompressorConfig.Brotli(5, CompressorConfig.BrotliMode.TEXT, 22, 4096))) {
      ByteArrayOutputStream received = new ByteArrayOutputStream();
      ByteBuf first = part(big);
      received.writeBytes(compress(c, first, false));
      first.release();
      assertThat(decode(received.toByteArray()).bytes()).isEqualTo(big);

      CompositeByteBuf composite = alloc.compositeBuffer();
      buffers.add(composite);
      composite.addComponent(true, Unpooled.wrappedBuffer("heap half, ".getBytes(StandardCharsets.UTF_8)));
      composite.addComponent(true, alloc.directBuffer().writeBytes("direct half".getBytes(StandardCharsets.UTF_8)));
      received.writeBytes(compress(c, composite, true));
      composite.release();
      Decoded d = decode(received.toByteArray());
      assertThat(d.done()).isTrue();
      assertThat(d.bytes()).hasSize(big.length + "heap half, direct half".length());
      assertThat(new String(d.bytes(), big.length, d.bytes().length - big.length, StandardCharsets.UTF_8))
          .isEqualTo("heap half, direct half");
    }
  }

  @Test
  void anEmptyBodyIsAnEmptyBrotliStream() throws IOException {
    try (BrotliCompressor c = new BrotliCompressor(DEFAULTS)) {
      byte[] encoded = compress(c, Unpooled.EMPTY_BUFFER, true);
      assertThat(encoded).isNotEmpty();
      Decoded d = decode(encoded);
      assertThat(d.done()).isTrue();
      assertThat(d.bytes()).isEmpty();
    }
  }

  @Test
  void everyQualityModeAndWindowEdgeEncodes() throws IOException {
    for (CompressorConfig.Brotli config : List.of(
        new CompressorConfig.Brotli(0, CompressorConfig.BrotliMode.GENERIC, 10, 4096),
        new CompressorConfig.Brotli(11, CompressorConfig.BrotliMode.FONT, 24, 65536),
        new CompressorConfig.Brotli(9, CompressorConfig.BrotliMode.TEXT, 18, 8192))) {
      try (BrotliCompressor c = new BrotliCompressor(config)) {
        ByteBuf in = part(TEXT.getBytes(StandardCharsets.UTF_8));
        byte[] flushed = compress(c, in, false);
        in.release();
        assertThat(decode(flushed).text()).as(config.toString()).isEqualTo(TEXT);
        ByteArrayOutputStream all = new ByteArrayOutputStream();
        all.writeBytes(flushed);
        all.writeBytes(compress(c, Unpooled.EMPTY_BUFFER, true));
        assertThat(decode(all.toByteArray())).as(config.toString()).satisfies(d -> {
          assertThat(d.done()).isTrue();
          assertThat(d.text()).isEqualTo(TEXT);
        });
      }
    }
  }

  @Test
  void closingAStreamThatDidNotFinishDestroysTheNativeEncoderOnce() throws IOException {
    CountingEncoder encoder = new CountingEncoder();
    BrotliCompressor c = new BrotliCompressor(encoder, 4096);
    ByteBuf in = part(TEXT.getBytes(StandardCharsets.UTF_8));
    compress(c, in, false);
    in.release();
    assertThat(encoder.destroyed).isZero();
    c.close();
    assertThat(encoder.destroyed).isEqualTo(1);
    c.close();
    assertThat(encoder.destroyed).as("close is idempotent").isEqualTo(1);
    assertThatThrownBy(() -> encoder.push(EncoderJNI.Operation.PROCESS, 0))
        .as("the native state is gone").isInstanceOf(IllegalStateException.class);
  }

  @Test
  void closingAFinishedStreamDestroysTheNativeEncoder() throws IOException {
    CountingEncoder encoder = new CountingEncoder();
    try (BrotliCompressor c = new BrotliCompressor(encoder, 4096)) {
      assertThat(decode(compress(c, Unpooled.EMPTY_BUFFER, true)).done()).isTrue();
    }
    assertThat(encoder.destroyed).isEqualTo(1);
  }

  @Test
  void theNativeLibraryIsAvailableOnThisPlatform() {
    assertThat(Brotli4jLoader.isAvailable()).as("a native is packaged for the build's platforms").isTrue();
  }
}
