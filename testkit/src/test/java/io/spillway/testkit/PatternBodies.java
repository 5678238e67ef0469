package io.spillway.testkit;

import java.io.IOException;
import java.io.InputStream;
import java.net.http.HttpRequest;

/** Generated request bodies and checks of generated response bodies, never held in memory whole. */
final class PatternBodies {

    private PatternBodies() {}

    /** A body publisher of {@code length} pattern bytes with a known length (sent with content-length). */
    static HttpRequest.BodyPublisher publisher(long length) {
        return HttpRequest.BodyPublishers.fromPublisher(
                HttpRequest.BodyPublishers.ofInputStream(() -> new PatternInputStream(length)), length);
    }

    /** A body publisher of {@code length} pattern bytes without a known length (sent chunked). */
    static HttpRequest.BodyPublisher chunkedPublisher(long length) {
        return HttpRequest.BodyPublishers.ofInputStream(() -> new PatternInputStream(length));
    }

    /** Reads the stream to its end and closes it, failing at the first byte that breaks the pattern; returns the count. */
    static long readPattern(InputStream in) throws IOException {
        try (in) {
            return readPattern(in, Long.MAX_VALUE);
        }
    }

    /** Reads at most {@code limit} bytes (fewer at end of stream), checking the pattern; returns the count. */
    static long readPattern(InputStream in, long limit) throws IOException {
        byte[] buffer = new byte[64 * 1024];
        long offset = 0;
        while (offset < limit) {
            int read = in.read(buffer, 0, (int) Math.min(buffer.length, limit - offset));
            if (read < 0) {
                break;
            }
            for (int i = 0; i < read; i++) {
                if (buffer[i] != BodyPattern.byteAt(offset + i)) {
                    throw new AssertionError("body byte " + (offset + i) + " is " + buffer[i]
                            + ", expected " + BodyPattern.byteAt(offset + i));
                }
            }
            offset += read;
        }
        return offset;
    }

    /** An input stream of pattern bytes, generated as it is read. */
    private static final class PatternInputStream extends InputStream {

        private final long length;
        private long offset;

        PatternInputStream(long length) {
            this.length = length;
        }

        @Override
        public int read() {
            return offset < length ? BodyPattern.byteAt(offset++) : -1;
        }

        @Override
        public int read(byte[] target, int from, int count) {
            if (offset >= length) {
                return -1;
            }
            int n = (int) Math.min(count, length - offset);
            for (int i = 0; i < n; i++) {
                target[from + i] = BodyPattern.byteAt(offset + i);
            }
            offset += n;
            return n;
        }
    }
}
