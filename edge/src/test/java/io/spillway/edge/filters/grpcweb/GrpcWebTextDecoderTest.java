package io.spillway.edge.filters.grpcweb;

import static org.assertj.core.api.Assertions.assertThat;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufUtil;
import io.netty.buffer.Unpooled;
import io.netty.buffer.UnpooledByteBufAllocator;
import java.io.ByteArrayOutputStream;
import java.nio.charset.StandardCharsets;
import java.util.Base64;
import java.util.SplittableRandom;
import org.junit.jupiter.api.Test;

/**
 * The request-side base64 decoder: whole and split input (every split point, one byte at a
 * time), both padding forms, padded segments one after another, and every kind of invalid input.
 */
class GrpcWebTextDecoderTest {

  private static final UnpooledByteBufAllocator ALLOC = UnpooledByteBufAllocator.DEFAULT;

  /** Feeds the parts one by one; the decoded bytes, or null at the first invalid part. */
  private static byte[] decode(GrpcWebTextDecoder decoder, String... parts) {
    ByteArrayOutputStream out = new ByteArrayOutputStream();
    for (String part : parts) {
      ByteBuf in = Unpooled.copiedBuffer(part, StandardCharsets.US_ASCII);
      ByteBuf decoded = decoder.decode(in, ALLOC);
      assertThat(in.readableBytes()).as("the input is left as it was").isEqualTo(part.length());
      in.release();
      if (decoded == null) {
        return null;
      }
      out.writeBytes(ByteBufUtil.getBytes(decoded));
      decoded.release();
    }
    return out.toByteArray();
  }

  private static byte[] decode(String... parts) {
    return decode(new GrpcWebTextDecoder(), parts);
  }

  @Test
  void decodesWholeInputAsTheStandardDecoderDoes() {
    for (String text : new String[] {"", "AA==", "AAA=", "AAAA", "aGVsbG8=", "aGVsbG8h", "aGk=",
        "AAAAABJncnBjLXdlYi10ZXh0LWRhdGE=", "+/+/", "////"}) {
      assertThat(decode(text)).as(text).isEqualTo(Base64.getDecoder().decode(text));
    }
  }

  @Test
  void aQuantumSplitAcrossPartsIsCompletedByTheNextPart() {
    String text = "AAAAABJncnBjLXdlYi10ZXh0LWRhdGE=";
    byte[] expected = Base64.getDecoder().decode(text);
    for (int split = 0; split <= text.length(); split++) {
      assertThat(decode(text.substring(0, split), text.substring(split))).as("split at %d", split)
          .isEqualTo(expected);
    }
    assertThat(decode(text.split(""))).as("one character at a time").isEqualTo(expected);
  }

  @Test
  void pendingCountsTheCharactersOfAnUnfinishedQuantum() {
    GrpcWebTextDecoder decoder = new GrpcWebTextDecoder();
    assertThat(decode(decoder, "aGVs")).isEqualTo("hel".getBytes(StandardCharsets.US_ASCII));
    assertThat(decoder.pending()).isZero();
    assertThat(decode(decoder, "bG")).isEmpty();
    assertThat(decoder.pending()).isEqualTo(2);
    assertThat(decode(decoder, "8")).isEmpty();
    assertThat(decoder.pending()).isEqualTo(3);
    assertThat(decode(decoder, "=")).isEqualTo("lo".getBytes(StandardCharsets.US_ASCII));
    assertThat(decoder.pending()).isZero();
  }

  @Test
  void paddedSegmentsMayFollowOneAnother() {
    // Two frames, each base64-encoded on its own, as a text stream carries them.
    String text = Base64.getEncoder().encodeToString(new byte[] {0, 0, 0, 0, 1, 'x'})
        + Base64.getEncoder().encodeToString(new byte[] {(byte) 0x80, 0, 0, 0, 0});
    assertThat(text).isEqualTo("AAAAAAF4gAAAAAA=");
    assertThat(decode(text)).isEqualTo(new byte[] {0, 0, 0, 0, 1, 'x', (byte) 0x80, 0, 0, 0, 0});
    assertThat(decode("aGk=", "aGk=", "aA==")).isEqualTo("hihih".getBytes(StandardCharsets.US_ASCII));
    assertThat(decode("aGk=aGk=aA==")).isEqualTo("hihih".getBytes(StandardCharsets.US_ASCII));
  }

  @Test
  void refusesCharactersOutsideTheStandardAlphabet() {
    assertThat(decode("****")).isNull();
    assertThat(decode("aGVs", "bG8 ")).as("whitespace").isNull();
    assertThat(decode("aGVs\r\n")).as("a line break").isNull();
    assertThat(decode("-_-_")).as("the URL-safe alphabet").isNull();
    assertThat(decode("aGVs", "bG\u00e98")).as("a byte above 0x7f").isNull();
  }

  @Test
  void refusesPaddingAnywhereButAtTheEndOfAQuantum() {
    assertThat(decode("=AAA")).isNull();
    assertThat(decode("A=AA")).isNull();
    assertThat(decode("AA=A")).as("a pad before a character").isNull();
    assertThat(decode("====")).isNull();
    assertThat(decode("AA==", "=AAA")).isNull();
  }

  @Test
  void refusesBitsThePaddingWouldDiscard() {
    assertThat(decode("AB==")).as("the second character's low four bits").isNull();
    assertThat(decode("AAB=")).as("the third character's low two bits").isNull();
    assertThat(decode("AQ==")).isEqualTo(new byte[] {1});
    assertThat(decode("AAE=")).isEqualTo(new byte[] {0, 1});
  }

  @Test
  void roundTripsRandomBytesInRandomParts() {
    SplittableRandom random = new SplittableRandom(7);
    for (int round = 0; round < 200; round++) {
      byte[] bytes = new byte[random.nextInt(0, 300)];
      random.nextBytes(bytes);
      String text = Base64.getEncoder().encodeToString(bytes);
      java.util.List<String> parts = new java.util.ArrayList<>();
      int at = 0;
      while (at < text.length()) {
        int next = Math.min(text.length(), at + random.nextInt(1, 9));
        parts.add(text.substring(at, next));
        at = next;
      }
      assertThat(decode(parts.toArray(String[]::new))).isEqualTo(bytes);
    }
  }
}
