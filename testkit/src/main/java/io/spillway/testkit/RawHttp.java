package io.spillway.testkit;

import java.io.IOException;
import java.io.InterruptedIOException;
import java.io.OutputStream;
import java.io.UncheckedIOException;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import java.util.Objects;

/**
 * A raw-socket HTTP/1.x client for hostile-input tests: it writes the request bytes exactly as
 * given (a {@code String} is sent one byte per character, ISO-8859-1, so the CRLFs are the test's)
 * and parses whatever comes back without judging it. Every connection is to 127.0.0.1.
 *
 * <pre>{@code
 * RawHttp.Response r = RawHttp.exchange(port, "GET / HTTP/1.1\r\nHost: a\r\n\r\n", Duration.ofSeconds(5));
 * assertThat(r.status()).isEqualTo(200);
 * }</pre>
 */
public final class RawHttp {

    private RawHttp() {}

    /**
     * Connects, sends the request and reads one response (no body if the request is a HEAD). If the
     * server closes while the request is still being written, whatever it answered is still read.
     *
     * @throws UncheckedIOException on connection failure, or when the timeout passes before a
     *         complete response or a close
     */
    public static Response exchange(int port, String rawRequest, Duration timeout) {
        return exchange(port, bytes(rawRequest), timeout);
    }

    /** {@link #exchange(int, String, Duration)} with the request as bytes. */
    public static Response exchange(int port, byte[] rawRequest, Duration timeout) {
        try (Connection connection = connect(port, timeout)) {
            return connection.exchange(rawRequest, timeout);
        }
    }

    /**
     * Connects and sends the request {@code bytesPerWrite} bytes at a time, {@code pause} apart, then
     * reads one response within {@code timeout} (counted from the last write). If the server closes
     * mid-way the remaining bytes are dropped and whatever it answered is read.
     */
    public static Response exchangeSlowly(int port, String rawRequest, int bytesPerWrite, Duration pause, Duration timeout) {
        try (Connection connection = connect(port, timeout)) {
            connection.sendSlowly(rawRequest, bytesPerWrite, pause);
            return connection.readResponse(timeout, isHead(bytes(rawRequest)));
        }
    }

    /** Opens a connection to 127.0.0.1:{@code port} to send and read on at will. */
    public static Connection connect(int port, Duration connectTimeout) {
        Socket socket = new Socket();
        try {
            socket.setTcpNoDelay(true);
            socket.connect(new InetSocketAddress("127.0.0.1", port), (int) Math.max(1, connectTimeout.toMillis()));
            return new Connection(socket);
        } catch (IOException e) {
            closeQuietly(socket);
            throw new UncheckedIOException("cannot connect to 127.0.0.1:" + port, e);
        }
    }

    private static byte[] bytes(String raw) {
        return raw.getBytes(StandardCharsets.ISO_8859_1);
    }

    private static boolean isHead(byte[] request) {
        return request.length >= 5 && new String(request, 0, 5, StandardCharsets.ISO_8859_1).equals("HEAD ");
    }

    private static void closeQuietly(Socket socket) {
        try {
            socket.close();
        } catch (IOException ignored) {
            // nothing left to release
        }
    }

    /**
     * One response as it came off the wire.
     *
     * @param status   the status code, or -1 when the server closed before sending a status line
     * @param reason   the reason phrase, possibly empty
     * @param version  the protocol of the status line, e.g. {@code HTTP/1.1}
     * @param headers  the header fields in arrival order
     * @param body     the body with any chunked framing removed
     * @param trailers the trailer fields of a chunked body
     * @param complete whether the body arrived to the end its framing announced (false when the
     *                 server closed early)
     * @param closed   whether the server had closed the connection by the time the response was read
     *                 (when it announced {@code Connection: close}, the read waits for that close)
     */
    public record Response(
            int status,
            String reason,
            String version,
            List<HeaderField> headers,
            byte[] body,
            List<HeaderField> trailers,
            boolean complete,
            boolean closed) {

        public Response {
            headers = List.copyOf(headers);
            trailers = List.copyOf(trailers);
            Objects.requireNonNull(body, "body");
        }

        /** Whether a status line arrived at all. */
        public boolean answered() {
            return status > 0;
        }

        /** The first value of the named header (case-insensitive), or {@code null}. */
        public String header(String name) {
            for (HeaderField field : headers) {
                if (field.is(name)) {
                    return field.value();
                }
            }
            return null;
        }

        /** Every value of the named header (case-insensitive), in arrival order. */
        public List<String> headers(String name) {
            return headers.stream().filter(f -> f.is(name)).map(HeaderField::value).toList();
        }

        /** The body decoded as UTF-8. */
        public String bodyText() {
            return new String(body, StandardCharsets.UTF_8);
        }

        @Override
        public String toString() {
            return "Response[" + status + " " + reason + ", " + headers + ", " + body.length + " body bytes"
                    + (complete ? "" : ", incomplete") + (closed ? ", closed" : "") + "]";
        }
    }

    /**
     * A raw connection kept open across exchanges: send requests (all at once, slowly, or
     * pipelined) and read the responses in order. Not thread-safe.
     */
    public static final class Connection implements AutoCloseable {

        private final Socket socket;
        private final OutputStream out;
        private final RawResponseReader reader;

        private Connection(Socket socket) throws IOException {
            this.socket = socket;
            this.out = socket.getOutputStream();
            this.reader = new RawResponseReader(socket);
        }

        /** Writes the bytes as given. @throws UncheckedIOException if the connection is gone */
        public void send(String raw) {
            send(bytes(raw));
        }

        /** Writes the bytes as given. @throws UncheckedIOException if the connection is gone */
        public void send(byte[] raw) {
            try {
                out.write(raw);
                out.flush();
            } catch (IOException e) {
                throw new UncheckedIOException("write failed (server closed?)", e);
            }
        }

        /**
         * Writes {@code bytesPerWrite} bytes at a time with {@code pause} between writes.
         *
         * @return true when every byte was written; false when the server closed or reset first
         */
        public boolean sendSlowly(String raw, int bytesPerWrite, Duration pause) {
            return sendSlowly(bytes(raw), bytesPerWrite, pause);
        }

        /** {@link #sendSlowly(String, int, Duration)} with bytes. */
        public boolean sendSlowly(byte[] raw, int bytesPerWrite, Duration pause) {
            if (bytesPerWrite < 1) {
                throw new IllegalArgumentException("bytesPerWrite must be >= 1, got " + bytesPerWrite);
            }
            try {
                for (int offset = 0; offset < raw.length; offset += bytesPerWrite) {
                    if (offset > 0) {
                        Thread.sleep(pause);
                    }
                    out.write(raw, offset, Math.min(bytesPerWrite, raw.length - offset));
                    out.flush();
                }
                return true;
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw new UncheckedIOException(new InterruptedIOException("interrupted while sending slowly"));
            } catch (IOException e) {
                return false;
            }
        }

        /** Sends the request and reads its response; a write failure still reads what the server said. */
        public Response exchange(String raw, Duration timeout) {
            return exchange(bytes(raw), timeout);
        }

        /** {@link #exchange(String, Duration)} with bytes. */
        public Response exchange(byte[] raw, Duration timeout) {
            try {
                out.write(raw);
                out.flush();
            } catch (IOException e) {
                // the server may have answered and closed before taking the whole request
            }
            return readResponse(timeout, isHead(raw));
        }

        /** Reads the next response. @throws UncheckedIOException on timeout */
        public Response readResponse(Duration timeout) {
            return readResponse(timeout, false);
        }

        /** Reads the next response as the answer to a HEAD request: no body, whatever the headers say. */
        public Response readHeadResponse(Duration timeout) {
            return readResponse(timeout, true);
        }

        private Response readResponse(Duration timeout, boolean bodyless) {
            try {
                return reader.read(timeout, bodyless);
            } catch (IOException e) {
                throw new UncheckedIOException(e);
            }
        }

        /** Waits for the server to close, discarding anything it sends; false when the timeout passes first. */
        public boolean awaitClose(Duration timeout) {
            try {
                return reader.awaitEof(timeout);
            } catch (IOException e) {
                throw new UncheckedIOException(e);
            }
        }

        /** Whether a read has seen the server close (or reset) the connection. */
        public boolean isClosedByPeer() {
            return reader.eof();
        }

        /** The client-side port, to tell connections apart in server logs or records. */
        public int localPort() {
            return socket.getLocalPort();
        }

        @Override
        public void close() {
            closeQuietly(socket);
        }
    }
}
