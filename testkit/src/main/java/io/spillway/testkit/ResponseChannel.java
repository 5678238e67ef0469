package io.spillway.testkit;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufAllocator;
import io.netty.handler.codec.http.HttpHeaders;
import io.netty.util.concurrent.EventExecutor;

/**
 * The response side of one origin exchange, implemented once per HTTP version so that
 * {@link OriginExchange} holds the behaviour only once. Every call happens on the connection's
 * event loop.
 */
interface ResponseChannel {

    /** Sends the status and headers; {@code endOfStream} when no body follows. */
    void sendHead(int status, HttpHeaders headers, boolean endOfStream);

    /** Queues one body chunk (ownership passes to the channel); {@code endOfStream} on the last. */
    void sendContent(ByteBuf content, boolean endOfStream);

    void flush();

    /** Whether more content can be queued without growing the outbound buffer past its mark. */
    boolean isWritable();

    boolean isOpen();

    /** Gives up on the exchange without answering: HTTP/1 closes the connection, HTTP/2 resets the stream. */
    void abort();

    /** Stops or resumes reading the request body (back-pressure for {@code /echo}). */
    void pauseRequestBody(boolean paused);

    ByteBufAllocator alloc();

    EventExecutor executor();
}
