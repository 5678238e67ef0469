package io.spillway.testkit;

import io.netty.buffer.ByteBuf;
import java.util.Arrays;

/**
 * The bytes of every generated body in the testkit: the byte at offset {@code i} is
 * {@code 'a' + i % 26}, so a body of any length can be produced lazily and checked anywhere.
 */
final class BodyPattern {

    /** The size of one generated chunk. */
    static final int CHUNK_SIZE = 16 * 1024;

    private static final int PERIOD = 26;
    private static final byte[] SOURCE = source(CHUNK_SIZE + PERIOD);

    private BodyPattern() {}

    /** The byte at the given offset of a generated body. */
    static byte byteAt(long offset) {
        return (byte) ('a' + offset % PERIOD);
    }

    /** Writes {@code length} (at most {@link #CHUNK_SIZE}) pattern bytes starting at body offset {@code offset}. */
    static void write(ByteBuf target, long offset, int length) {
        target.writeBytes(SOURCE, (int) (offset % PERIOD), length);
    }

    /**
     * Whether the readable bytes of {@code content} are the pattern bytes starting at body offset
     * {@code offset}; copies through {@code scratch} (at least {@link #CHUNK_SIZE} long) to compare
     * arrays, which is several times faster than reading the buffer in place.
     */
    static boolean matches(ByteBuf content, long offset, byte[] scratch) {
        int index = content.readerIndex();
        int left = content.readableBytes();
        long bodyOffset = offset;
        while (left > 0) {
            int length = Math.min(left, CHUNK_SIZE);
            content.getBytes(index, scratch, 0, length);
            int start = (int) (bodyOffset % PERIOD);
            if (!Arrays.equals(scratch, 0, length, SOURCE, start, start + length)) {
                return false;
            }
            index += length;
            left -= length;
            bodyOffset += length;
        }
        return true;
    }

    private static byte[] source(int length) {
        byte[] bytes = new byte[length];
        for (int i = 0; i < length; i++) {
            bytes[i] = byteAt(i);
        }
        return bytes;
    }
}
