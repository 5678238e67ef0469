package io.spillway.edge.filters.grpcweb;

import static org.assertj.core.api.Assertions.assertThat;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import io.netty.buffer.UnpooledByteBufAllocator;
import java.io.ByteArrayOutputStream;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import java.util.Base64;
import java.util.SplittableRandom;
import org.junit.jupiter.api.Test;

/**
 * The response-side base64 encoder: each gRPC frame becomes its own padded base64 segment,
 * whatever the parts the frames arrive in, and a body cut inside a frame is padded at its end.
 */
class GrpcWebTextEncoderTest {

  private static final UnpooledByteBufAllocator ALLOC = UnpooledByteBufAllocator.DEFAULT;

  /** A data frame (flag 0) with this message. */
  static byte[] frame(byte[] message) {
    byte[] f = new byte[5 + message.length];
    f[1] = (byte) (message.length >>> 24);
    f[2] = (byte) (message.length >>> 16);
    f[3] = (byte) (message.length >>> 8);
    f[4] = (byte) message.length;
    System.arraycopy(message, 0, f, 5, message.length);
    return f;
  }

  private static byte[] concat(byte[]... parts) {
    ByteArrayOutputStream out = new ByteArrayOutputStream();
    for (byte[] p : parts) {
      out.writeBytes(p);
    }
    return out.toByteArray();
  }

  private static String b64(byte[] bytes) {
    return Base64.getEncoder().encodeToString(bytes);
  }

  /** Feeds {@code body} cut at {@code cuts} (ascending offsets), the last part with end of stream. */
  private static String encode(byte[] body, int... cuts) {
    GrpcWebTextEncoder encoder = new GrpcWebTextEncoder();
    StringBuilder out = new StringBuilder();
    int from = 0;
    for (int i = 0; i <= cuts.length; i++) {
      int to = i < cuts.length ? cuts[i] : body.length;
      ByteBuf in = Unpooled.wrappedBuffer(Arrays.copyOfRange(body, from, to));
      ByteBuf encoded = encoder.encode(in, i == cuts.length, ALLOC);
      assertThat(in.readableBytes()).isEqualTo(to - from);
      in.release();
      out.append(encoded.toString(StandardCharsets.US_ASCII));
      encoded.release();
      from = to;
    }
    return out.toString();
  }

  @Test
  void oneFrameIsItsBase64() {
    for (int length = 0; length < 9; length++) {
      byte[] f = frame("abcdefghij".substring(0, length).getBytes(StandardCharsets.US_ASCII));
      assertThat(encode(f)).as("message of %d bytes", length).isEqualTo(b64(f));
    }
    assertThat(encode(frame(new byte[0]))).isEqualTo("AAAAAAA=");
  }

  @Test
  void eachFrameIsPaddedOnItsOwnWhateverThePartsItArrivesIn() {
    byte[] a = frame("grpc-web-text-data".getBytes(StandardCharsets.US_ASCII));
    byte[] b = frame("x".getBytes(StandardCharsets.US_ASCII));
    byte[] c = frame(new byte[0]);
    byte[] body = concat(a, b, c);
    String expected = b64(a) + b64(b) + b64(c);
    assertThat(expected).contains("=");
    for (int cut = 0; cut <= body.length; cut++) {
      assertThat(encode(body, cut)).as("cut at %d", cut).isEqualTo(expected);
    }
    int[] everyByte = new int[body.length - 1];
    for (int i = 0; i < everyByte.length; i++) {
      everyByte[i] = i + 1;
    }
    assertThat(encode(body, everyByte)).as("one byte at a time").isEqualTo(expected);
  }

  @Test
  void aFrameLongerThanAnyPartIsEncodedAsItArrives() {
    byte[] message = new byte[100_000];
    new SplittableRandom(3).nextBytes(message);
    byte[] f = frame(message);
    GrpcWebTextEncoder encoder = new GrpcWebTextEncoder();
    ByteBuf first = encoder.encode(Unpooled.wrappedBuffer(f, 0, 30_000), false, ALLOC);
    assertThat(first.readableBytes()).as("output before the frame is complete").isEqualTo(30_000 / 3 * 4);
    ByteBuf rest = encoder.encode(Unpooled.wrappedBuffer(f, 30_000, f.length - 30_000), false, ALLOC);
    assertThat(first.toString(StandardCharsets.US_ASCII) + rest.toString(StandardCharsets.US_ASCII))
        .isEqualTo(b64(f));
    first.release();
    rest.release();
  }

  @Test
  void aBodyCutInsideAFrameIsPaddedAtItsEnd() {
    byte[] f = frame("hello".getBytes(StandardCharsets.US_ASCII));
    byte[] cut = Arrays.copyOf(f, 7);
    assertThat(encode(cut)).isEqualTo(b64(cut));
  }

  @Test
  void encodeWholeIsOnePaddedSegment() {
    byte[] trailer = "\u0080\0\0\0\u000egrpc-status:0\r\n".getBytes(StandardCharsets.ISO_8859_1);
    ByteBuf whole = GrpcWebTextEncoder.encodeWhole(Unpooled.wrappedBuffer(trailer), ALLOC);
    assertThat(whole.toString(StandardCharsets.US_ASCII)).isEqualTo(b64(trailer));
    whole.release();
  }
}
