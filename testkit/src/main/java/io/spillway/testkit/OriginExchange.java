package io.spillway.testkit;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import io.netty.handler.codec.http.DefaultHttpHeaders;
import io.netty.handler.codec.http.HttpHeaderNames;
import io.netty.handler.codec.http.HttpHeaders;
import java.io.ByteArrayOutputStream;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;

/**
 * One request to an {@link OriginServer} and the behaviour its path asks for, independent of the
 * HTTP version: the protocol handlers feed it the request and it answers through a
 * {@link ResponseChannel}. Lives on the connection's event loop; never blocks it (delays are
 * scheduled, generated and echoed bodies follow the channel's writability).
 */
final class OriginExchange {

    private static final int MAX_CHUNKED_PARTS = 1000;

    private final OriginState state;
    private final RequestHead head;
    private final ResponseChannel out;
    private final OriginRoute route;
    private final boolean headRequest;
    private final long declaredLength;
    private final ByteArrayOutputStream capturedBody = new ByteArrayOutputStream();
    private int injectedStatus;
    private boolean recorded;
    private long bodyLength;
    private boolean echoing;
    private boolean bodyPaused;
    private long generatedLeft;
    private long generatedOffset;
    private boolean pumping;
    private ScheduledFuture<?> scheduled;

    OriginExchange(OriginState state, RequestHead head, ResponseChannel out) {
        this.state = state;
        this.head = head;
        this.out = out;
        this.route = OriginRoute.parse(head.path());
        this.headRequest = "HEAD".equals(head.method());
        this.declaredLength = declaredLength(head.header(HttpHeaderNames.CONTENT_LENGTH.toString()));
    }

    private static long declaredLength(String contentLength) {
        if (contentLength == null) {
            return -1;
        }
        try {
            return Long.parseLong(contentLength.trim());
        } catch (NumberFormatException e) {
            return -1;
        }
    }

    /** The request's headers have arrived. */
    void onRequestHead() {
        injectedStatus = state.takeInjectedFailure();
        if (injectedStatus == 0 && route.kind() == OriginRoute.Kind.ECHO && !headRequest) {
            HttpHeaders headers = baseHeaders();
            copyHeader(HttpHeaderNames.CONTENT_LENGTH.toString(), headers);
            copyHeader(HttpHeaderNames.CONTENT_TYPE.toString(), headers);
            out.sendHead(200, headers, false);
            out.flush();
            echoing = true;
        }
    }

    /** One chunk of the request body; ownership passes to this exchange. */
    void onRequestContent(ByteBuf content) {
        bodyLength += content.readableBytes();
        int room = RecordedRequest.BODY_CAPTURE_LIMIT - capturedBody.size();
        if (room > 0) {
            int take = Math.min(room, content.readableBytes());
            byte[] bytes = new byte[take];
            content.getBytes(content.readerIndex(), bytes);
            capturedBody.write(bytes, 0, take);
        }
        if (declaredLength >= 0 && bodyLength >= declaredLength) {
            // the echo's peer knows its response is whole at this byte: record before sending it
            record();
        }
        if (!echoing || !out.isOpen()) {
            content.release();
            return;
        }
        out.sendContent(content, false);
        if (!out.isWritable() && !bodyPaused) {
            bodyPaused = true;
            out.pauseRequestBody(true);
            out.flush();
            onWritable();
        }
    }

    /** The protocol handler finished a batch of reads. */
    void onReadComplete() {
        if (echoing) {
            out.flush();
        }
    }

    /** The request body ended: record the request, then answer. */
    void onRequestEnd() {
        record();
        if (injectedStatus != 0) {
            respond(injectedStatus, state.name() + " injected " + injectedStatus + "\n", "text/plain; charset=utf-8");
            return;
        }
        switch (route.kind()) {
            case DEFAULT -> respond(statusParameter(), defaultBody(), "text/plain; charset=utf-8");
            case STATUS -> answerStatus();
            case DELAY -> scheduled = out.executor().schedule(
                    () -> respond(statusParameter(), defaultBody(), "text/plain; charset=utf-8"),
                    route.argument(), TimeUnit.MILLISECONDS);
            case ECHO -> finishEcho();
            case BYTES -> startGeneratedBody(route.argument());
            case DRAIN -> answerDrain();
            case RESET -> out.abort();
            case HANG -> { }
            case HEADERS -> respond(statusParameter(), headersJson(), "application/json");
            case CHUNKED -> startChunked();
        }
    }

    /** The channel can take more output again. */
    void onWritable() {
        if (bodyPaused && out.isWritable()) {
            bodyPaused = false;
            out.pauseRequestBody(false);
        }
        if (generatedLeft > 0 && out.isWritable()) {
            pumpGeneratedBody();
        }
    }

    private void record() {
        if (!recorded) {
            recorded = true;
            state.journal().add(head.complete(bodyLength, capturedBody.toString(StandardCharsets.UTF_8)));
        }
    }

    /** Whether this exchange answers through the given channel. */
    boolean isAnsweredBy(ResponseChannel channel) {
        return out == channel;
    }

    /** The connection or stream closed; stop whatever is pending. */
    void onClosed() {
        generatedLeft = 0;
        if (scheduled != null) {
            scheduled.cancel(false);
        }
    }

    private void answerStatus() {
        long code = route.argument();
        if (code < 200 || code > 599) {
            respond(400, state.name() + " status must be 200..599, got " + code + "\n", "text/plain; charset=utf-8");
        } else {
            respond((int) code, state.name() + " status " + code + "\n", "text/plain; charset=utf-8");
        }
    }

    private void answerDrain() {
        HttpHeaders headers = baseHeaders();
        headers.set("x-received-bytes", Long.toString(bodyLength));
        respond(statusParameter(), headers, state.name() + " received " + bodyLength + " bytes\n",
                "text/plain; charset=utf-8");
    }

    private void finishEcho() {
        if (echoing) {
            out.sendContent(Unpooled.EMPTY_BUFFER, true);
            out.flush();
        } else {
            respond(200, "", "text/plain; charset=utf-8");
        }
    }

    private void startGeneratedBody(long length) {
        HttpHeaders headers = baseHeaders();
        headers.set(HttpHeaderNames.CONTENT_TYPE, "application/octet-stream");
        headers.set(HttpHeaderNames.CONTENT_LENGTH, Long.toString(length));
        if (headRequest || length == 0) {
            out.sendHead(200, headers, true);
            out.flush();
            return;
        }
        out.sendHead(200, headers, false);
        generatedLeft = length;
        generatedOffset = 0;
        pumpGeneratedBody();
    }

    /**
     * Writes generated chunks while the channel is writable. Writability events fire from inside
     * write and flush, so a nested call returns at once and the outer loop re-checks after flushing.
     */
    private void pumpGeneratedBody() {
        if (pumping) {
            return;
        }
        pumping = true;
        try {
            do {
                while (generatedLeft > 0 && out.isWritable()) {
                    int size = (int) Math.min(BodyPattern.CHUNK_SIZE, generatedLeft);
                    ByteBuf chunk = out.alloc().buffer(size);
                    BodyPattern.write(chunk, generatedOffset, size);
                    generatedOffset += size;
                    generatedLeft -= size;
                    out.sendContent(chunk, generatedLeft == 0);
                }
                out.flush();
            } while (generatedLeft > 0 && out.isWritable());
        } finally {
            pumping = false;
        }
    }

    private void startChunked() {
        long parts = Math.max(1, Math.min(MAX_CHUNKED_PARTS, route.queryNumber("parts", 3)));
        long delayMillis = route.queryNumber("delay", 0);
        HttpHeaders headers = baseHeaders();
        headers.set(HttpHeaderNames.CONTENT_TYPE, "text/plain; charset=utf-8");
        if (headRequest) {
            out.sendHead(statusParameter(), headers, true);
            out.flush();
            return;
        }
        out.sendHead(statusParameter(), headers, false);
        out.flush();
        sendParts(1, (int) parts, delayMillis);
    }

    private void sendParts(int first, int parts, long delayMillis) {
        for (int part = first; part <= parts; part++) {
            if (!out.isOpen()) {
                return;
            }
            String text = "part " + part + " of " + parts + "\n";
            out.sendContent(Unpooled.copiedBuffer(text, StandardCharsets.UTF_8), part == parts);
            out.flush();
            if (delayMillis > 0 && part < parts) {
                int next = part + 1;
                scheduled = out.executor().schedule(() -> sendParts(next, parts, delayMillis),
                        delayMillis, TimeUnit.MILLISECONDS);
                return;
            }
        }
    }

    private void respond(int status, String body, String contentType) {
        respond(status, baseHeaders(), body, contentType);
    }

    private void respond(int status, HttpHeaders headers, String body, String contentType) {
        if (!out.isOpen()) {
            return;
        }
        boolean bodyForbidden = status == 204 || status == 304;
        byte[] bytes = body.getBytes(StandardCharsets.UTF_8);
        if (!bodyForbidden) {
            headers.set(HttpHeaderNames.CONTENT_TYPE, contentType);
            headers.set(HttpHeaderNames.CONTENT_LENGTH, Integer.toString(bytes.length));
        }
        if (bodyForbidden || headRequest || bytes.length == 0) {
            out.sendHead(status, headers, true);
        } else {
            out.sendHead(status, headers, false);
            out.sendContent(Unpooled.wrappedBuffer(bytes), true);
        }
        out.flush();
    }

    private HttpHeaders baseHeaders() {
        HttpHeaders headers = new DefaultHttpHeaders();
        headers.set("x-origin", state.name());
        state.responseHeaders().forEach(headers::set);
        return headers;
    }

    private void copyHeader(String name, HttpHeaders target) {
        String value = head.header(name);
        if (value != null) {
            target.set(name, value);
        }
    }

    private int statusParameter() {
        long status = route.queryNumber("status", 200);
        return status >= 200 && status <= 599 ? (int) status : 200;
    }

    private String defaultBody() {
        return state.name() + " " + head.method() + " " + head.path() + "\n";
    }

    private String headersJson() {
        Map<String, List<String>> byName = new LinkedHashMap<>();
        for (HeaderField field : head.headers()) {
            byName.computeIfAbsent(field.name().toLowerCase(Locale.ROOT), n -> new ArrayList<>()).add(field.value());
        }
        StringBuilder json = new StringBuilder(256);
        json.append("{\"origin\":").append(quote(state.name()))
                .append(",\"protocol\":").append(quote(head.protocol()))
                .append(",\"method\":").append(quote(head.method()))
                .append(",\"path\":").append(quote(head.path()))
                .append(",\"authority\":").append(quote(head.authority()))
                .append(",\"headers\":{");
        boolean firstName = true;
        for (Map.Entry<String, List<String>> entry : byName.entrySet()) {
            json.append(firstName ? "" : ",").append(quote(entry.getKey())).append(":[");
            firstName = false;
            for (int i = 0; i < entry.getValue().size(); i++) {
                json.append(i == 0 ? "" : ",").append(quote(entry.getValue().get(i)));
            }
            json.append(']');
        }
        return json.append("}}\n").toString();
    }

    private static String quote(String text) {
        StringBuilder quoted = new StringBuilder(text.length() + 2).append('"');
        for (int i = 0; i < text.length(); i++) {
            char c = text.charAt(i);
            switch (c) {
                case '"' -> quoted.append("\\\"");
                case '\\' -> quoted.append("\\\\");
                default -> {
                    if (c < 0x20) {
                        quoted.append(String.format("\\u%04x", (int) c));
                    } else {
                        quoted.append(c);
                    }
                }
            }
        }
        return quoted.append('"').toString();
    }
}
