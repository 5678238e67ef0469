package io.spillway.testkit;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import io.netty.handler.codec.http2.DefaultHttp2Headers;
import io.netty.handler.codec.http2.DefaultHttp2HeadersDecoder;
import io.netty.handler.codec.http2.DefaultHttp2HeadersEncoder;
import io.netty.handler.codec.http2.Http2CodecUtil;
import io.netty.handler.codec.http2.Http2Error;
import io.netty.handler.codec.http2.Http2Exception;
import io.netty.handler.codec.http2.Http2FrameTypes;
import io.netty.handler.codec.http2.Http2Headers;
import io.netty.handler.codec.http2.Http2HeadersEncoder;
import java.io.ByteArrayOutputStream;
import java.io.DataInputStream;
import java.io.EOFException;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.io.UncheckedIOException;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.net.SocketException;
import java.net.SocketTimeoutException;
import java.security.GeneralSecurityException;
import java.security.cert.X509Certificate;
import java.time.Duration;
import java.util.List;
import java.util.Optional;
import java.util.function.Predicate;
import javax.net.ssl.SSLContext;
import javax.net.ssl.SSLParameters;
import javax.net.ssl.SSLSocket;
import javax.net.ssl.TrustManager;
import javax.net.ssl.X509TrustManager;

/**
 * A raw-socket HTTP/2 client for protocol tests: it writes frames exactly as asked (any type,
 * flags, stream id or payload, whatever RFC 9113 says of them) on a blocking socket to
 * 127.0.0.1 (cleartext with prior knowledge, or TLS with ALPN h2) and reads back the server's frames one by one, decoding only header blocks. Header
 * blocks are HPACK-encoded with Netty's encoder (one dynamic table per connection, as a real
 * client has). Every read is bounded by a timeout.
 *
 * <pre>{@code
 * try (RawHttp2 h2 = RawHttp2.connect(port)) {
 *     h2.preface().frame(Http2FrameTypes.DATA, 0, 0, new byte[1]);
 *     assertThat(h2.awaitGoAway(Duration.ofSeconds(5)).errorCode()).isEqualTo(Http2Error.PROTOCOL_ERROR.code());
 * }
 * }</pre>
 */
public final class RawHttp2 implements AutoCloseable {

    public static final int END_STREAM = 0x1;
    public static final int ACK = 0x1;
    public static final int END_HEADERS = 0x4;
    public static final int PADDED = 0x8;

    private final Socket socket;
    private final OutputStream out;
    private final DataInputStream in;
    private final DefaultHttp2HeadersEncoder encoder =
            new DefaultHttp2HeadersEncoder(Http2HeadersEncoder.NEVER_SENSITIVE, true);
    private final DefaultHttp2HeadersDecoder decoder = new DefaultHttp2HeadersDecoder(false, 1024 * 1024);
    private final String authority;
    private ByteBuf pendingHeaderBlock;
    private int pendingHeaderStream;
    private boolean closed;

    private RawHttp2(Socket socket) throws IOException {
        this.socket = socket;
        this.out = socket.getOutputStream();
        this.in = new DataInputStream(socket.getInputStream());
        this.authority = "127.0.0.1:" + socket.getPort();
    }

    /** Connects to 127.0.0.1:{@code port}. */
    public static RawHttp2 connect(int port) {
        return connect(port, 0);
    }

    /**
     * Connects with a receive buffer of {@code receiveBufferBytes} (0: the system's), so that a test
     * that stops reading fills the server's side of the connection quickly.
     */
    public static RawHttp2 connect(int port, int receiveBufferBytes) {
        Socket socket = new Socket();
        try {
            socket.setTcpNoDelay(true);
            if (receiveBufferBytes > 0) {
                socket.setReceiveBufferSize(receiveBufferBytes);
            }
            socket.connect(new InetSocketAddress("127.0.0.1", port), 5_000);
            return new RawHttp2(socket);
        } catch (IOException e) {
            try {
                socket.close();
            } catch (IOException ignored) {
                // nothing more to do
            }
            throw new UncheckedIOException("cannot connect to 127.0.0.1:" + port, e);
        }
    }

    /**
     * Connects over TLS offering only {@code h2} by ALPN (RFC 9113 §3.2), trusting any certificate
     * (tests only); fails unless the server chose h2.
     */
    public static RawHttp2 connectTls(int port) {
        try {
            SSLContext context = SSLContext.getInstance("TLS");
            context.init(null, new TrustManager[] {new TrustEverything()}, null);
            SSLSocket socket = (SSLSocket) context.getSocketFactory().createSocket();
            socket.setTcpNoDelay(true);
            SSLParameters parameters = socket.getSSLParameters();
            parameters.setApplicationProtocols(new String[] {"h2"});
            socket.setSSLParameters(parameters);
            socket.connect(new InetSocketAddress("127.0.0.1", port), 5_000);
            socket.setSoTimeout(10_000);
            socket.startHandshake();
            if (!"h2".equals(socket.getApplicationProtocol())) {
                socket.close();
                throw new IllegalStateException("the server chose \"" + socket.getApplicationProtocol() + "\", not h2");
            }
            return new RawHttp2(socket);
        } catch (IOException | GeneralSecurityException e) {
            throw new IllegalStateException("cannot connect over TLS to 127.0.0.1:" + port, e);
        }
    }

    /** Accepts any server certificate: these connections only ever go to a test's own edge on 127.0.0.1. */
    private static final class TrustEverything implements X509TrustManager {
        @Override
        public void checkClientTrusted(X509Certificate[] chain, String authType) {
            // not a server
        }

        @Override
        public void checkServerTrusted(X509Certificate[] chain, String authType) {
            // any: the peer is the test's own edge
        }

        @Override
        public X509Certificate[] getAcceptedIssuers() {
            return new X509Certificate[0];
        }
    }

    // --- writing --------------------------------------------------------------------------------

    /** The client connection preface and an empty SETTINGS frame (RFC 9113 §3.4). */
    public RawHttp2 preface() {
        ByteBuf preface = Http2CodecUtil.connectionPrefaceBuf();
        byte[] bytes = new byte[preface.readableBytes()];
        preface.readBytes(bytes);
        send(bytes);
        return settings();
    }

    /** A SETTINGS frame with {@code idValuePairs} (identifier, value, identifier, value, …). */
    public RawHttp2 settings(long... idValuePairs) {
        byte[] payload = new byte[idValuePairs.length / 2 * 6];
        for (int i = 0; i + 1 < idValuePairs.length; i += 2) {
            int at = i / 2 * 6;
            payload[at] = (byte) (idValuePairs[i] >> 8);
            payload[at + 1] = (byte) idValuePairs[i];
            putInt(payload, at + 2, (int) idValuePairs[i + 1]);
        }
        return frame(Http2FrameTypes.SETTINGS, 0, 0, payload);
    }

    /** Acknowledges the server's SETTINGS. */
    public RawHttp2 settingsAck() {
        return frame(Http2FrameTypes.SETTINGS, ACK, 0, new byte[0]);
    }

    /**
     * The server's first SETTINGS frame (skipping anything before it), then acknowledges it; its
     * SETTINGS_HEADER_TABLE_SIZE applies to the header blocks encoded from then on (RFC 7541 §4.2).
     */
    public Frame awaitServerSettings(Duration timeout) {
        Frame settings = awaitFrame(f -> f.type() == Http2FrameTypes.SETTINGS && (f.flags() & ACK) == 0, timeout)
                .orElseThrow(() -> new AssertionError("no SETTINGS from the server"));
        Optional<Long> tableSize = settings.setting(Http2CodecUtil.SETTINGS_HEADER_TABLE_SIZE);
        if (tableSize.isPresent()) {
            try {
                encoder.configuration().maxHeaderTableSize(tableSize.get());
            } catch (Http2Exception e) {
                throw new IllegalStateException("bad SETTINGS_HEADER_TABLE_SIZE " + tableSize.get(), e);
            }
        }
        settingsAck();
        return settings;
    }

    /** A request's headers ({@code :method}, {@code :scheme http}, {@code :authority}, {@code :path}, then {@code extra}). */
    public static Http2Headers request(String method, String path, String... extra) {
        Http2Headers h = new DefaultHttp2Headers(false).method(method).scheme("http").path(path);
        for (int i = 0; i + 1 < extra.length; i += 2) {
            h.add(extra[i], extra[i + 1]);
        }
        return h;
    }

    /** HPACK-encodes {@code headers} (an {@code :authority} of 127.0.0.1:port is added when absent). */
    public byte[] headerBlock(Http2Headers headers) {
        if (headers.authority() == null && headers.method() != null) {
            headers.authority(authority);
        }
        ByteBuf block = Unpooled.buffer();
        try {
            encoder.encodeHeaders(1, headers, block);
            return bytes(block);
        } catch (Http2Exception e) {
            throw new IllegalArgumentException("cannot encode " + headers, e);
        } finally {
            block.release();
        }
    }

    /** One HEADERS frame carrying the whole header block (END_HEADERS). */
    public RawHttp2 headers(int streamId, Http2Headers headers, boolean endStream) {
        return frame(Http2FrameTypes.HEADERS, END_HEADERS | (endStream ? END_STREAM : 0), streamId,
                headerBlock(headers));
    }

    /** A DATA frame. */
    public RawHttp2 data(int streamId, byte[] payload, boolean endStream) {
        return frame(Http2FrameTypes.DATA, endStream ? END_STREAM : 0, streamId, payload);
    }

    /** A RST_STREAM frame. */
    public RawHttp2 rstStream(int streamId, Http2Error error) {
        byte[] payload = new byte[4];
        putInt(payload, 0, (int) error.code());
        return frame(Http2FrameTypes.RST_STREAM, 0, streamId, payload);
    }

    /** A PING frame (not an ACK). */
    public RawHttp2 ping(long opaque) {
        byte[] payload = new byte[8];
        putInt(payload, 0, (int) (opaque >>> 32));
        putInt(payload, 4, (int) opaque);
        return frame(Http2FrameTypes.PING, 0, 0, payload);
    }

    /** A WINDOW_UPDATE frame. */
    public RawHttp2 windowUpdate(int streamId, int increment) {
        byte[] payload = new byte[4];
        putInt(payload, 0, increment);
        return frame(Http2FrameTypes.WINDOW_UPDATE, 0, streamId, payload);
    }

    /** A PRIORITY frame: {@code streamId} depends on stream 0 with weight 16. */
    public RawHttp2 priority(int streamId) {
        return frame(Http2FrameTypes.PRIORITY, 0, streamId, new byte[] {0, 0, 0, 0, 15});
    }

    /** Any frame, as given. */
    public RawHttp2 frame(int type, int flags, int streamId, byte[] payload) {
        return send(encodeFrame(type, flags, streamId, payload));
    }

    /** The bytes of a frame: the 9-byte header (RFC 9113 §4.1) and the payload. */
    public static byte[] encodeFrame(int type, int flags, int streamId, byte[] payload) {
        byte[] frame = new byte[9 + payload.length];
        frame[0] = (byte) (payload.length >> 16);
        frame[1] = (byte) (payload.length >> 8);
        frame[2] = (byte) payload.length;
        frame[3] = (byte) type;
        frame[4] = (byte) flags;
        putInt(frame, 5, streamId);
        System.arraycopy(payload, 0, frame, 9, payload.length);
        return frame;
    }

    /** Raw bytes. A write the server refuses (it closed) is ignored: what it sent is still read. */
    public RawHttp2 send(byte[] bytes) {
        if (closed) {
            return this;
        }
        try {
            out.write(bytes);
            out.flush();
        } catch (SocketException e) {
            closed = true; // the server went away; its last frames can still be read
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        return this;
    }

    /** Whether a write found the connection closed by the server. */
    public boolean writeFailed() {
        return closed;
    }

    // --- reading --------------------------------------------------------------------------------

    /**
     * One frame from the server ({@code :status} and other headers decoded when it ends a header
     * block; CONTINUATION frames are folded into their HEADERS frame).
     *
     * @param type        frame type
     * @param flags       frame flags
     * @param streamId    stream identifier
     * @param payload     the payload as received (for HEADERS, the whole header block)
     * @param headers     the decoded header block for HEADERS, else null
     */
    public record Frame(int type, int flags, int streamId, byte[] payload, Http2Headers headers) {

        /** The error code of a RST_STREAM or GOAWAY frame. */
        public long errorCode() {
            int at = type == Http2FrameTypes.GO_AWAY ? 4 : 0;
            return readInt(payload, at) & 0xFFFF_FFFFL;
        }

        /** The last stream id of a GOAWAY frame. */
        public int lastStreamId() {
            return readInt(payload, 0) & 0x7FFF_FFFF;
        }

        /** A SETTINGS parameter, if this SETTINGS frame carries it. */
        public Optional<Long> setting(int identifier) {
            for (int at = 0; at + 6 <= payload.length; at += 6) {
                if (((payload[at] & 0xFF) << 8 | (payload[at + 1] & 0xFF)) == identifier) {
                    return Optional.of(readInt(payload, at + 2) & 0xFFFF_FFFFL);
                }
            }
            return Optional.empty();
        }

        @Override
        public String toString() {
            return "Frame[type=" + type + ", flags=" + flags + ", stream=" + streamId + ", length=" + payload.length
                    + (type == Http2FrameTypes.GO_AWAY || type == Http2FrameTypes.RST_STREAM
                    ? ", error=" + errorCode() : "") + (headers != null ? ", headers=" + headers : "") + "]";
        }
    }

    /** The next frame, or empty when the server closed or nothing came within {@code timeout}. */
    public Optional<Frame> nextFrame(Duration timeout) {
        long deadline = System.nanoTime() + timeout.toNanos();
        try {
            while (true) {
                long left = deadline - System.nanoTime();
                if (left <= 0) {
                    return Optional.empty();
                }
                socket.setSoTimeout((int) Math.max(1, left / 1_000_000));
                byte[] header = new byte[9];
                in.readFully(header);
                int length = (header[0] & 0xFF) << 16 | (header[1] & 0xFF) << 8 | (header[2] & 0xFF);
                int type = header[3];
                int flags = header[4] & 0xFF;
                int streamId = readInt(header, 5) & 0x7FFF_FFFF;
                byte[] payload = new byte[length];
                in.readFully(payload);
                if (type == Http2FrameTypes.HEADERS || type == Http2FrameTypes.CONTINUATION) {
                    Frame headers = headerFragment(type, flags, streamId, payload);
                    if (headers == null) {
                        continue;
                    }
                    return Optional.of(headers);
                }
                return Optional.of(new Frame(type, flags, streamId, payload, null));
            }
        } catch (SocketTimeoutException | EOFException e) {
            return Optional.empty();
        } catch (SocketException e) {
            return Optional.empty(); // reset by the server
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    private Frame headerFragment(int type, int flags, int streamId, byte[] payload) {
        int start = 0;
        int end = payload.length;
        if (type == Http2FrameTypes.HEADERS) {
            if ((flags & PADDED) != 0) {
                end -= payload[0] & 0xFF;
                start = 1;
            }
            if ((flags & 0x20) != 0) {
                start += 5;
            }
            pendingHeaderBlock = Unpooled.buffer();
            pendingHeaderStream = streamId;
        }
        if (pendingHeaderBlock == null) {
            throw new IllegalStateException("CONTINUATION without HEADERS from the server");
        }
        pendingHeaderBlock.writeBytes(payload, start, end - start);
        if ((flags & END_HEADERS) == 0) {
            return null;
        }
        ByteBuf block = pendingHeaderBlock;
        pendingHeaderBlock = null;
        try {
            byte[] raw = bytes(block.duplicate());
            Http2Headers headers = decoder.decodeHeaders(pendingHeaderStream, block);
            return new Frame(Http2FrameTypes.HEADERS, flags, pendingHeaderStream, raw, headers);
        } catch (Http2Exception e) {
            throw new IllegalStateException("undecodable header block from the server", e);
        } finally {
            block.release();
        }
    }

    /** Reads frames until one matches, the server closes, or {@code timeout} passes. */
    public Optional<Frame> awaitFrame(Predicate<Frame> match, Duration timeout) {
        long deadline = System.nanoTime() + timeout.toNanos();
        while (true) {
            long left = deadline - System.nanoTime();
            if (left <= 0) {
                return Optional.empty();
            }
            Optional<Frame> f = nextFrame(Duration.ofNanos(left));
            if (f.isEmpty() || match.test(f.get())) {
                return f;
            }
        }
    }

    /** The server's GOAWAY, reading past anything else. */
    public Frame awaitGoAway(Duration timeout) {
        return awaitFrame(f -> f.type() == Http2FrameTypes.GO_AWAY, timeout)
                .orElseThrow(() -> new AssertionError("no GOAWAY within " + timeout));
    }

    /** The server's RST_STREAM for {@code streamId}, reading past anything else. */
    public Frame awaitReset(int streamId, Duration timeout) {
        return awaitFrame(f -> f.type() == Http2FrameTypes.RST_STREAM && f.streamId() == streamId, timeout)
                .orElseThrow(() -> new AssertionError("no RST_STREAM on stream " + streamId + " within " + timeout));
    }

    /**
     * Whether the server closes the connection within {@code timeout}, reading (and dropping) what
     * it still sends.
     */
    public boolean awaitClosed(Duration timeout) {
        long deadline = System.nanoTime() + timeout.toNanos();
        byte[] sink = new byte[16 * 1024];
        try {
            InputStream raw = in;
            while (System.nanoTime() < deadline) {
                socket.setSoTimeout((int) Math.max(1, (deadline - System.nanoTime()) / 1_000_000));
                try {
                    if (raw.read(sink) < 0) {
                        return true;
                    }
                } catch (SocketTimeoutException e) {
                    return false;
                }
            }
            return false;
        } catch (SocketException e) {
            return true;
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    @Override
    public void close() {
        if (pendingHeaderBlock != null) {
            pendingHeaderBlock.release();
            pendingHeaderBlock = null;
        }
        try {
            socket.close();
        } catch (IOException ignored) {
            // closing anyway
        }
    }

    private static byte[] bytes(ByteBuf buf) {
        byte[] b = new byte[buf.readableBytes()];
        buf.getBytes(buf.readerIndex(), b);
        return b;
    }

    private static void putInt(byte[] b, int at, int v) {
        b[at] = (byte) (v >> 24);
        b[at + 1] = (byte) (v >> 16);
        b[at + 2] = (byte) (v >> 8);
        b[at + 3] = (byte) v;
    }

    private static int readInt(byte[] b, int at) {
        return (b[at] & 0xFF) << 24 | (b[at + 1] & 0xFF) << 16 | (b[at + 2] & 0xFF) << 8 | (b[at + 3] & 0xFF);
    }

    /** A concatenation of frames built with {@link #encodeFrame}, to send in one write. */
    public static byte[] concat(List<byte[]> frames) {
        ByteArrayOutputStream all = new ByteArrayOutputStream();
        frames.forEach(all::writeBytes);
        return all.toByteArray();
    }
}
