package io.spillway.edge.filters.decompressor;

import static org.assertj.core.api.Assertions.assertThat;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import io.netty.buffer.UnpooledByteBufAllocator;
import io.spillway.edge.config.DecompressorConfig;
import org.junit.jupiter.api.Test;

/** The bomb check: per part with a 1 KiB floor, and over the body so far. */
class InflateBoundTest {

  @Test
  void aPartMayDecodeToTheRatioTimesItsSizeOrTheFloor() {
    InflateBound bound = new InflateBound(100);
    assertThat(bound.startPart(10_000)).isEqualTo(1_000_000);
    assertThat(bound.allows(1_000_000)).isTrue();
    assertThat(bound.allows(1_000_001)).isFalse();
    bound.endPart(1_000_000);
    // A tiny part counts as 1 KiB, but the body so far (10001 bytes in, 1000000 out) leaves 100 bytes.
    assertThat(bound.startPart(1)).isEqualTo(100);
  }

  @Test
  void aBombSentAFewBytesAtATimeIsCaughtOverTheBody() {
    byte[] bomb = Gzip.gzip(new byte[16 << 20]);
    GzipDecompressor d = new GzipDecompressor(new DecompressorConfig.Gzip(15, 4096, 100));
    boolean failed = false;
    for (int at = 0; at < bomb.length && !failed; at += 4) {
      ByteBuf part = Unpooled.wrappedBuffer(bomb, at, Math.min(4, bomb.length - at));
      ByteBuf out = d.decompress(part, UnpooledByteBufAllocator.DEFAULT);
      part.release();
      if (out == null) {
        failed = true;
      } else {
        out.release();
      }
    }
    assertThat(failed).isTrue();
    assertThat(d.failure()).isEqualTo(StreamDecompressor.Failure.INFLATE_RATIO);
  }
}
