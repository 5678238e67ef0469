package io.spillway.edge.filters.decompressor;

import static org.assertj.core.api.Assertions.assertThat;

import com.aayushatharva.brotli4j.Brotli4jLoader;
import com.aayushatharva.brotli4j.encoder.Encoder;
import com.github.luben.zstd.Zstd;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufUtil;
import io.netty.buffer.PooledByteBufAllocator;
import io.netty.buffer.Unpooled;
import java.io.ByteArrayOutputStream;
import java.util.function.Supplier;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * The brotli and zstd decoders: bodies split at many points (heap and direct parts), corrupt input,
 * and the bound of 100 times a part's size.
 */
class NativeDecompressorsTest {

  @BeforeAll
  static void loadNatives() {
    Brotli4jLoader.ensureAvailability();
  }

  private static byte[] decode(Supplier<StreamDecompressor> make, byte[] body, int partSize, boolean direct) {
    StreamDecompressor d = make.get();
    ByteArrayOutputStream out = new ByteArrayOutputStream();
    try {
      for (int at = 0; at < body.length; at += partSize) {
        int n = Math.min(partSize, body.length - at);
        ByteBuf part = direct ? PooledByteBufAllocator.DEFAULT.directBuffer(n).writeBytes(body, at, n)
            : Unpooled.wrappedBuffer(body, at, n);
        ByteBuf decoded = d.decompress(part, PooledByteBufAllocator.DEFAULT);
        part.release();
        if (decoded == null) {
          return null;
        }
        out.writeBytes(ByteBufUtil.getBytes(decoded));
        decoded.release();
      }
    } finally {
      d.end();
    }
    return out.toByteArray();
  }

  private static byte[] brotli(byte[] data) throws Exception {
    return Encoder.compress(data);
  }

  @Test
  void brotliBodiesDecodeWhateverTheirParts() throws Exception {
    byte[] data = Gzip.text(50_000);
    byte[] body = brotli(data);
    for (int partSize : new int[] {1, 13, 1000, body.length}) {
      assertThat(decode(() -> new BrotliDecompressor(4096), body, partSize, false)).as("parts of %d", partSize)
          .isEqualTo(data);
      assertThat(decode(() -> new BrotliDecompressor(4096), body, partSize, true)).isEqualTo(data);
    }
  }

  @Test
  void zstdBodiesDecodeWhateverTheirParts() {
    byte[] data = Gzip.text(50_000);
    byte[] body = Zstd.compress(data);
    for (int partSize : new int[] {1, 13, 1000, body.length}) {
      assertThat(decode(() -> new ZstdDecompressor(4096), body, partSize, false)).as("parts of %d", partSize)
          .isEqualTo(data);
      assertThat(decode(() -> new ZstdDecompressor(4096), body, partSize, true)).isEqualTo(data);
    }
  }

  @Test
  void corruptInputStopsBoth() {
    byte[] junk = "this is neither brotli nor zstd, just text".getBytes();
    assertThat(decode(() -> new BrotliDecompressor(4096), junk, junk.length, false)).isNull();
    assertThat(decode(() -> new ZstdDecompressor(4096), junk, junk.length, false)).isNull();
  }

  @Test
  void bombsStopAtAHundredTimesThePart() throws Exception {
    byte[] zeros = new byte[8 << 20];
    StreamDecompressor br = new BrotliDecompressor(4096);
    ByteBuf brBomb = Unpooled.wrappedBuffer(brotli(zeros));
    assertThat(br.decompress(brBomb, PooledByteBufAllocator.DEFAULT)).isNull();
    assertThat(br.failure()).isEqualTo(StreamDecompressor.Failure.INFLATE_RATIO);
    StreamDecompressor z = new ZstdDecompressor(4096);
    ByteBuf zBomb = Unpooled.wrappedBuffer(Zstd.compress(zeros));
    assertThat(z.decompress(zBomb, PooledByteBufAllocator.DEFAULT)).isNull();
    assertThat(z.failure()).isEqualTo(StreamDecompressor.Failure.INFLATE_RATIO);
    br.end();
    z.end();
  }
}
