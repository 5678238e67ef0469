package io.spillway.edge.filters.decompressor;

import static org.assertj.core.api.Assertions.assertThat;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufUtil;
import io.netty.buffer.Unpooled;
import io.netty.buffer.UnpooledByteBufAllocator;
import io.spillway.edge.config.DecompressorConfig;
import java.io.ByteArrayOutputStream;
import java.util.Arrays;
import org.junit.jupiter.api.Test;

/**
 * The streaming gzip decoder: bodies split at every possible point, every optional header field,
 * bytes after the member, corrupt input and trailers, and the inflate-ratio bound on each part.
 */
class GzipDecompressorTest {

  private static final DecompressorConfig.Gzip DEFAULTS = new DecompressorConfig.Gzip(15, 4096, 100);

  /** Decodes {@code body} in parts of {@code partSize}; null when the decoder failed. */
  private static byte[] decode(DecompressorConfig.Gzip config, byte[] body, int partSize) {
    GzipDecompressor d = new GzipDecompressor(config);
    ByteArrayOutputStream out = new ByteArrayOutputStream();
    try {
      for (int at = 0; at < body.length; at += partSize) {
        ByteBuf part = Unpooled.wrappedBuffer(body, at, Math.min(partSize, body.length - at));
        ByteBuf decoded = d.decompress(part, UnpooledByteBufAllocator.DEFAULT);
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

  @Test
  void decodesABodyWhateverItsParts() {
    byte[] data = Gzip.text(20_000);
    byte[] body = Gzip.gzip(data);
    for (int partSize : new int[] {1, 2, 7, 10, 11, 100, 4096, body.length}) {
      assertThat(decode(DEFAULTS, body, partSize)).as("parts of %d", partSize).isEqualTo(data);
    }
  }

  @Test
  void readsEveryOptionalHeaderField() {
    byte[] data = Gzip.text(3000);
    byte[] body = Gzip.gzipWithEveryHeaderField(data);
    assertThat(decode(DEFAULTS, body, 1)).isEqualTo(data);
    assertThat(decode(DEFAULTS, body, body.length)).isEqualTo(data);
  }

  @Test
  void ignoresWhatFollowsTheFirstMember() {
    byte[] data = Gzip.text(500);
    byte[] body = Gzip.gzip(data);
    byte[] twice = Arrays.copyOf(body, body.length * 2);
    System.arraycopy(body, 0, twice, body.length, body.length);
    assertThat(decode(DEFAULTS, twice, 64)).isEqualTo(data);
  }

  @Test
  void failsOnWhatIsNotGzipOrIsCorrupt() {
    GzipDecompressor d = new GzipDecompressor(DEFAULTS);
    assertThat(d.decompress(Unpooled.wrappedBuffer("plain text".getBytes()), UnpooledByteBufAllocator.DEFAULT))
        .isNull();
    assertThat(d.failure()).isEqualTo(StreamDecompressor.Failure.DATA_ERROR);

    byte[] body = Gzip.gzip(Gzip.text(1000));
    byte[] badCrc = body.clone();
    badCrc[badCrc.length - 6] ^= 1;
    assertThat(decode(DEFAULTS, badCrc, 100)).isNull();
    byte[] badDeflate = body.clone();
    badDeflate[10] = (byte) 0xff; // block type 3: reserved
    assertThat(decode(DEFAULTS, badDeflate, 100)).isNull();
  }

  @Test
  void aPartThatInflatesPastTheRatioStopsTheDecoder() {
    byte[] zeros = new byte[1 << 20];
    byte[] bomb = Gzip.gzip(zeros); // about 1 KiB: a ratio near 1000
    assertThat(decode(DEFAULTS, bomb, bomb.length)).isNull();
    GzipDecompressor d = new GzipDecompressor(DEFAULTS);
    ByteBuf part = Unpooled.wrappedBuffer(bomb);
    assertThat(d.decompress(part, UnpooledByteBufAllocator.DEFAULT)).isNull();
    assertThat(d.failure()).isEqualTo(StreamDecompressor.Failure.INFLATE_RATIO);
    // Envoy's highest ratio lets it through.
    assertThat(decode(new DecompressorConfig.Gzip(15, 65536, 1032), bomb, bomb.length)).isEqualTo(zeros);
    // Text compresses far less than 100:1.
    byte[] text = Gzip.text(100_000);
    assertThat(decode(DEFAULTS, Gzip.gzip(text), 512)).isEqualTo(text);
  }
}
