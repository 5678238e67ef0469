package io.spillway.testkit;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.net.Socket;
import java.net.SocketException;
import java.net.SocketTimeoutException;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;

/**
 * Reads HTTP/1.x responses off a raw socket under a deadline, following RFC 9112 §6.3 to find each
 * body's end: none for 1xx, 204, 304 and answers to HEAD; chunked; {@code content-length}; or up to
 * the close. Bytes after a response stay buffered for the next one (pipelining).
 */
final class RawResponseReader {

    private static final int MAX_LINE = 64 * 1024;

    private final Socket socket;
    private final InputStream in;
    private final byte[] buffer = new byte[64 * 1024];
    private int position;
    private int limit;
    private boolean eof;
    private final List<String> transcript = new ArrayList<>();

    RawResponseReader(Socket socket) throws IOException {
        this.socket = socket;
        this.in = socket.getInputStream();
    }

    /** Whether the peer has closed (or reset) the connection. */
    boolean eof() {
        return eof;
    }

    /**
     * Reads one response.
     *
     * @param bodyless true when it answers a HEAD request
     * @throws SocketTimeoutException when no complete response (nor a close) arrived within the timeout
     */
    RawHttp.Response read(Duration timeout, boolean bodyless) throws IOException {
        long deadline = System.nanoTime() + timeout.toNanos();
        transcript.clear();
        try {
            return readResponse(deadline, bodyless);
        } catch (SocketTimeoutException e) {
            throw new SocketTimeoutException("no complete response within " + timeout + "; received so far: " + transcript);
        }
    }

    /** Reads and discards until the peer closes; false when the timeout passes first. */
    boolean awaitEof(Duration timeout) throws IOException {
        long deadline = System.nanoTime() + timeout.toNanos();
        try {
            while (!eof) {
                position = limit;
                fill(deadline);
            }
            return true;
        } catch (SocketTimeoutException e) {
            return false;
        }
    }

    private RawHttp.Response readResponse(long deadline, boolean bodyless) throws IOException {
        String statusLine = readLine(deadline);
        while (statusLine != null && statusLine.isEmpty()) {
            statusLine = readLine(deadline);
        }
        if (statusLine == null) {
            return new RawHttp.Response(-1, "", "", List.of(), new byte[0], List.of(), false, true);
        }
        String[] parts = statusLine.split(" ", 3);
        if (parts.length < 2 || !parts[0].startsWith("HTTP/") || !parts[1].matches("\\d{3}")) {
            throw new IOException("malformed status line: " + statusLine);
        }
        String version = parts[0];
        int status = Integer.parseInt(parts[1]);
        String reason = parts.length == 3 ? parts[2] : "";
        List<HeaderField> headers = new ArrayList<>();
        if (!readFields(deadline, headers)) {
            return new RawHttp.Response(status, reason, version, headers, new byte[0], List.of(), false, true);
        }
        RawHttp.Response head = new RawHttp.Response(status, reason, version, headers, new byte[0], List.of(), true, false);
        ByteArrayOutputStream body = new ByteArrayOutputStream();
        List<HeaderField> trailers = new ArrayList<>();
        boolean complete;
        String transferEncoding = head.header("transfer-encoding");
        String contentLength = head.header("content-length");
        if (bodyless || status < 200 || status == 204 || status == 304) {
            complete = true;
        } else if (transferEncoding != null && transferEncoding.toLowerCase(Locale.ROOT).trim().endsWith("chunked")) {
            complete = readChunked(deadline, body, trailers);
        } else if (contentLength != null) {
            complete = readExactly(deadline, body, parseLength(contentLength.trim()));
        } else {
            do {
                body.write(buffer, position, limit - position);
                position = limit;
            } while (fill(deadline));
            complete = true;
        }
        boolean closeAnnounced = closeAnnounced(head);
        if (complete && !eof && closeAnnounced && status >= 200) {
            try {
                awaitEofUntil(deadline);
            } catch (SocketTimeoutException e) {
                // announced a close but has not closed yet: report the connection as open
            }
        }
        return new RawHttp.Response(status, reason, version, headers, body.toByteArray(), trailers, complete, eof);
    }

    private static boolean closeAnnounced(RawHttp.Response head) {
        String connection = head.header("connection");
        boolean close = connection != null && connection.toLowerCase(Locale.ROOT).contains("close");
        boolean keepAlive = connection != null && connection.toLowerCase(Locale.ROOT).contains("keep-alive");
        return close || ("HTTP/1.0".equals(head.version()) && !keepAlive);
    }

    private void awaitEofUntil(long deadline) throws IOException {
        while (!eof) {
            position = limit;
            fill(deadline);
        }
    }

    private boolean readFields(long deadline, List<HeaderField> into) throws IOException {
        while (true) {
            String line = readLine(deadline);
            if (line == null) {
                return false;
            }
            if (line.isEmpty()) {
                return true;
            }
            int colon = line.indexOf(':');
            if (colon <= 0) {
                throw new IOException("malformed header line: " + line);
            }
            into.add(new HeaderField(line.substring(0, colon).trim(), line.substring(colon + 1).trim()));
        }
    }

    private boolean readChunked(long deadline, ByteArrayOutputStream body, List<HeaderField> trailers) throws IOException {
        while (true) {
            String sizeLine = readLine(deadline);
            if (sizeLine == null) {
                return false;
            }
            int semicolon = sizeLine.indexOf(';');
            String hex = (semicolon >= 0 ? sizeLine.substring(0, semicolon) : sizeLine).trim();
            long size;
            try {
                size = Long.parseLong(hex, 16);
            } catch (NumberFormatException e) {
                throw new IOException("malformed chunk size line: " + sizeLine, e);
            }
            if (size == 0) {
                return readFields(deadline, trailers);
            }
            if (!readExactly(deadline, body, size)) {
                return false;
            }
            String end = readLine(deadline);
            if (end == null) {
                return false;
            }
            if (!end.isEmpty()) {
                throw new IOException("chunk not followed by CRLF: " + end);
            }
        }
    }

    private boolean readExactly(long deadline, ByteArrayOutputStream body, long length) throws IOException {
        long left = length;
        while (left > 0) {
            if (position == limit && !fill(deadline)) {
                return false;
            }
            int take = (int) Math.min(left, limit - position);
            body.write(buffer, position, take);
            position += take;
            left -= take;
        }
        return true;
    }

    /** One line without its CRLF (or bare LF); null when the peer closed before the line ended. */
    private String readLine(long deadline) throws IOException {
        ByteArrayOutputStream line = new ByteArrayOutputStream();
        while (true) {
            if (position == limit && !fill(deadline)) {
                if (line.size() > 0) {
                    transcript.add(line.toString(StandardCharsets.ISO_8859_1));
                }
                return null;
            }
            byte b = buffer[position++];
            if (b == '\n') {
                byte[] bytes = line.toByteArray();
                int length = bytes.length > 0 && bytes[bytes.length - 1] == '\r' ? bytes.length - 1 : bytes.length;
                String text = new String(bytes, 0, length, StandardCharsets.ISO_8859_1);
                transcript.add(text);
                return text;
            }
            line.write(b);
            if (line.size() > MAX_LINE) {
                throw new IOException("line longer than " + MAX_LINE + " bytes");
            }
        }
    }

    private static long parseLength(String value) throws IOException {
        try {
            long length = Long.parseLong(value);
            if (length < 0) {
                throw new IOException("negative content-length: " + value);
            }
            return length;
        } catch (NumberFormatException e) {
            throw new IOException("malformed content-length: " + value, e);
        }
    }

    /** Reads more bytes into the (empty) buffer; false at end of stream or on a reset. */
    private boolean fill(long deadline) throws IOException {
        if (eof) {
            return false;
        }
        position = 0;
        limit = 0;
        long leftMillis = (deadline - System.nanoTime()) / 1_000_000;
        if (leftMillis <= 0) {
            throw new SocketTimeoutException("deadline passed");
        }
        socket.setSoTimeout((int) Math.min(Integer.MAX_VALUE, leftMillis));
        int read;
        try {
            read = in.read(buffer, 0, buffer.length);
        } catch (SocketTimeoutException e) {
            throw e;
        } catch (SocketException e) {
            read = -1;
        }
        if (read < 0) {
            eof = true;
            return false;
        }
        limit = read;
        return true;
    }
}
