package io.spillway.testkit;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.UncheckedIOException;
import java.time.Duration;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/** The raw client against the origin's HTTP/1.1 side, which also covers the origin's framing. */
@Timeout(60)
class RawHttpIT {

    private static final Duration TIMEOUT = Duration.ofSeconds(10);

    private OriginServer origin;

    @BeforeEach
    void start() {
        origin = OriginServer.start("origin-raw");
    }

    @AfterEach
    void stop() {
        origin.close();
    }

    @Test
    void exchangeReadsAContentLengthResponse() {
        RawHttp.Response response = RawHttp.exchange(origin.port(), "GET /raw HTTP/1.1\r\nHost: a.test\r\n\r\n", TIMEOUT);

        assertThat(response.status()).isEqualTo(200);
        assertThat(response.reason()).isEqualTo("OK");
        assertThat(response.version()).isEqualTo("HTTP/1.1");
        assertThat(response.header("Content-Length")).isEqualTo("20");
        assertThat(response.bodyText()).isEqualTo("origin-raw GET /raw\n");
        assertThat(response.complete()).isTrue();
        assertThat(response.closed()).isFalse();
        assertThat(origin.lastRequest().authority()).isEqualTo("a.test");
    }

    @Test
    void exchangeDecodesAChunkedResponse() {
        RawHttp.Response response = RawHttp.exchange(origin.port(),
                "GET /chunked?parts=3 HTTP/1.1\r\nHost: a\r\n\r\n", TIMEOUT);

        assertThat(response.header("transfer-encoding")).isEqualTo("chunked");
        assertThat(response.bodyText()).isEqualTo("part 1 of 3\npart 2 of 3\npart 3 of 3\n");
        assertThat(response.complete()).isTrue();
    }

    @Test
    void connectionCloseIsAnnouncedAndHonoured() {
        RawHttp.Response response = RawHttp.exchange(origin.port(),
                "GET / HTTP/1.1\r\nHost: a\r\nConnection: close\r\n\r\n", TIMEOUT);

        assertThat(response.status()).isEqualTo(200);
        assertThat(response.header("connection")).isEqualTo("close");
        assertThat(response.closed()).isTrue();
    }

    @Test
    void http10WithoutKeepAliveIsClosed() {
        RawHttp.Response response = RawHttp.exchange(origin.port(), "GET /old HTTP/1.0\r\n\r\n", TIMEOUT);

        assertThat(response.status()).isEqualTo(200);
        assertThat(response.closed()).isTrue();
        assertThat(origin.lastRequest().protocol()).isEqualTo("HTTP/1.0");
    }

    @Test
    void aConnectionCarriesSeveralExchanges() {
        try (RawHttp.Connection connection = RawHttp.connect(origin.port(), TIMEOUT)) {
            assertThat(connection.exchange("GET /1 HTTP/1.1\r\nHost: a\r\n\r\n", TIMEOUT).status()).isEqualTo(200);
            assertThat(connection.exchange("POST /echo HTTP/1.1\r\nHost: a\r\nContent-Length: 5\r\n\r\nhello", TIMEOUT)
                    .bodyText()).isEqualTo("hello");
            assertThat(connection.exchange("HEAD /bytes/100 HTTP/1.1\r\nHost: a\r\n\r\n", TIMEOUT)
                    .header("content-length")).isEqualTo("100");
            assertThat(connection.exchange("GET /3 HTTP/1.1\r\nHost: a\r\n\r\n", TIMEOUT).bodyText())
                    .isEqualTo("origin-raw GET /3\n");
        }
        assertThat(origin.connectionCount()).isEqualTo(1);
        assertThat(origin.requests()).extracting(RecordedRequest::connectionId).containsOnly(1);
    }

    @Test
    void pipelinedRequestsAreAnsweredInOrder() {
        try (RawHttp.Connection connection = RawHttp.connect(origin.port(), TIMEOUT)) {
            connection.send("GET /delay/50 HTTP/1.1\r\nHost: a\r\n\r\n"
                    + "GET /second HTTP/1.1\r\nHost: a\r\n\r\n"
                    + "GET /third HTTP/1.1\r\nHost: a\r\n\r\n");

            assertThat(connection.readResponse(TIMEOUT).bodyText()).isEqualTo("origin-raw GET /delay/50\n");
            assertThat(connection.readResponse(TIMEOUT).bodyText()).isEqualTo("origin-raw GET /second\n");
            assertThat(connection.readResponse(TIMEOUT).bodyText()).isEqualTo("origin-raw GET /third\n");
        }
    }

    @Test
    void aChunkedRequestBodyIsEchoedChunked() {
        RawHttp.Response response = RawHttp.exchange(origin.port(),
                "POST /echo HTTP/1.1\r\nHost: a\r\nTransfer-Encoding: chunked\r\n\r\n5\r\nhello\r\n6\r\n world\r\n0\r\n\r\n",
                TIMEOUT);

        assertThat(response.header("transfer-encoding")).isEqualTo("chunked");
        assertThat(response.bodyText()).isEqualTo("hello world");
        assertThat(origin.lastRequest().bodyLength()).isEqualTo(11);
    }

    @Test
    void resetClosesWithoutAStatusLine() {
        RawHttp.Response response = RawHttp.exchange(origin.port(), "GET /reset HTTP/1.1\r\nHost: a\r\n\r\n", TIMEOUT);

        assertThat(response.answered()).isFalse();
        assertThat(response.status()).isEqualTo(-1);
        assertThat(response.closed()).isTrue();
    }

    @Test
    void aMalformedRequestGets400AndAClose() {
        RawHttp.Response response = RawHttp.exchange(origin.port(),
                "POST / HTTP/1.1\r\nHost: a\r\nContent-Length: abc\r\n\r\n", TIMEOUT);

        assertThat(response.status()).isEqualTo(400);
        assertThat(response.closed()).isTrue();
        assertThat(origin.requestCount()).isZero();
    }

    @Test
    void aSlowClientIsServedOnceItsRequestIsWhole() {
        RawHttp.Response response = RawHttp.exchangeSlowly(origin.port(),
                "GET /slow HTTP/1.1\r\nHost: a\r\n\r\n", 4, Duration.ofMillis(2), TIMEOUT);

        assertThat(response.status()).isEqualTo(200);
        assertThat(response.bodyText()).isEqualTo("origin-raw GET /slow\n");
    }

    @Test
    void expectContinueGetsAnInterimResponseFirst() {
        try (RawHttp.Connection connection = RawHttp.connect(origin.port(), TIMEOUT)) {
            connection.send("PUT /drain HTTP/1.1\r\nHost: a\r\nContent-Length: 4\r\nExpect: 100-continue\r\n\r\n");
            assertThat(connection.readResponse(TIMEOUT).status()).isEqualTo(100);

            connection.send("data");
            RawHttp.Response response = connection.readResponse(TIMEOUT);
            assertThat(response.status()).isEqualTo(200);
            assertThat(response.header("x-received-bytes")).isEqualTo("4");
        }
    }

    @Test
    void aHangingServerTimesTheReadOut() {
        try (RawHttp.Connection connection = RawHttp.connect(origin.port(), TIMEOUT)) {
            connection.send("GET /hang HTTP/1.1\r\nHost: a\r\n\r\n");

            assertThatThrownBy(() -> connection.readResponse(Duration.ofMillis(100)))
                    .isInstanceOf(UncheckedIOException.class)
                    .hasMessageContaining("no complete response");
            assertThat(connection.isClosedByPeer()).isFalse();
            origin.closeConnections();
            assertThat(connection.awaitClose(TIMEOUT)).isTrue();
        }
    }
}
