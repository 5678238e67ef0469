package io.spillway.testkit;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/** The origin over HTTP/2 with prior knowledge, driven by the testkit's {@link H2cClient}. */
@Timeout(60)
class OriginServerHttp2IT {

    private static final long MIB = 1024 * 1024;

    private OriginServer origin;
    private H2cClient client;

    @BeforeEach
    void start() {
        origin = OriginServer.start("origin-h2");
        client = H2cClient.connect(origin.port());
    }

    @AfterEach
    void stop() {
        client.close();
        origin.close();
    }

    @Test
    void defaultAnswerNamesTheOriginAndRecordsPseudoHeaders() {
        H2cClient.Response response = client.get("/hello?x=1");

        assertThat(response.status()).isEqualTo(200);
        assertThat(response.bodyText()).isEqualTo("origin-h2 GET /hello?x=1\n");
        assertThat(response.header("x-origin")).isEqualTo("origin-h2");
        RecordedRequest request = origin.lastRequest();
        assertThat(request.protocol()).isEqualTo("HTTP/2");
        assertThat(request.isHttp2()).isTrue();
        assertThat(request.method()).isEqualTo("GET");
        assertThat(request.path()).isEqualTo("/hello?x=1");
        assertThat(request.authority()).isEqualTo("127.0.0.1:" + origin.port());
        assertThat(request.header(":scheme")).isEqualTo("http");
        assertThat(request.header(":authority")).isEqualTo("127.0.0.1:" + origin.port());
    }

    @Test
    void aCustomAuthorityAndHeadersArriveAsSent() {
        H2cClient.await(client.send("POST", "/things",
                List.of(new HeaderField(":authority", "api.example.com"), new HeaderField("X-Tenant", "t1")),
                "hello".getBytes(StandardCharsets.UTF_8)));

        RecordedRequest request = origin.lastRequest();
        assertThat(request.authority()).isEqualTo("api.example.com");
        assertThat(request.header("x-tenant")).isEqualTo("t1");
        assertThat(request.header("content-length")).isEqualTo("5");
        assertThat(request.body()).isEqualTo("hello");
    }

    @Test
    void concurrentStreamsShareOneConnection() {
        List<CompletableFuture<H2cClient.Response>> responses = new ArrayList<>();
        for (int i = 0; i < 20; i++) {
            responses.add(client.send("GET", "/delay/20?n=" + i, List.of(), null));
        }

        assertThat(responses).allSatisfy(r -> assertThat(H2cClient.await(r).status()).isEqualTo(200));
        assertThat(origin.connectionCount()).isEqualTo(1);
        assertThat(origin.requestCount()).isEqualTo(20);
    }

    @Test
    void statusAndFailNextWork() {
        assertThat(client.get("/status/503").status()).isEqualTo(503);
        origin.failNext(1, 502);
        assertThat(client.get("/").status()).isEqualTo(502);
        assertThat(client.get("/").status()).isEqualTo(200);
    }

    @Test
    void resetCancelsTheStreamButNotTheConnection() {
        H2cClient.Response response = client.get("/reset");

        assertThat(response.reset()).isTrue();
        assertThat(response.resetCode()).isEqualTo(0x8);
        assertThat(client.get("/").status()).isEqualTo(200);
        assertThat(origin.connectionCount()).isEqualTo(1);
    }

    @Test
    void aHangingStreamDoesNotHoldUpTheOthers() {
        CompletableFuture<H2cClient.Response> hanging = client.send("GET", "/hang", List.of(), null);

        assertThat(client.get("/delay/10").status()).isEqualTo(200);
        assertThat(hanging).isNotDone();
    }

    @Test
    void echoStreamsA64MiBBodyBackUnderFlowControl() {
        long length = 64 * MIB + 5;
        H2cClient.Response response = H2cClient.await(client.upload("POST", "/echo", List.of(), length));

        assertThat(response.status()).isEqualTo(200);
        assertThat(response.header("content-length")).isEqualTo(Long.toString(length));
        assertThat(response.bodyLength()).isEqualTo(length);
        assertThat(response.bodyMatchesPattern()).isTrue();
        assertThat(origin.lastRequest().bodyLength()).isEqualTo(length);
    }

    @Test
    void bytesStreamsAGeneratedBody() {
        long length = 64 * MIB + 1;
        H2cClient.Response response = client.get("/bytes/" + length);

        assertThat(response.header("content-length")).isEqualTo(Long.toString(length));
        assertThat(response.bodyLength()).isEqualTo(length);
        assertThat(response.bodyMatchesPattern()).isTrue();
        assertThat(response.body()).hasSize(H2cClient.MAX_CAPTURED_BODY);
    }

    @Test
    void drainCountsAnUpload() {
        H2cClient.Response response = H2cClient.await(client.upload("PUT", "/drain", List.of(), 8 * MIB));

        assertThat(response.header("x-received-bytes")).isEqualTo(Long.toString(8 * MIB));
    }

    @Test
    void headersAndChunkedWork() {
        assertThat(client.get("/headers").bodyText())
                .contains("\"protocol\":\"HTTP/2\"")
                .contains("\":authority\":[\"127.0.0.1:" + origin.port() + "\"]");
        assertThat(client.get("/chunked?parts=2&delay=5").bodyText()).isEqualTo("part 1 of 2\npart 2 of 2\n");
    }

    @Test
    void http1AndHttp2ShareThePort() throws Exception {
        client.get("/over-h2");
        try (HttpClient http1 = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1).build()) {
            http1.send(HttpRequest.newBuilder(origin.uri("/over-h1")).build(), HttpResponse.BodyHandlers.discarding());
        }

        assertThat(origin.requests()).extracting(RecordedRequest::protocol).containsExactly("HTTP/2", "HTTP/1.1");
        assertThat(origin.connectionCount()).isEqualTo(2);
    }

    @Test
    void awaitRequestCountFailsWhenTooFewArrive() {
        client.get("/");
        origin.awaitRequestCount(1, Duration.ofSeconds(5));
        assertThatThrownBy(() -> origin.awaitRequestCount(2, Duration.ofMillis(20)))
                .isInstanceOf(AssertionError.class);
    }
}
