package io.spillway.testkit;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.EOFException;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.io.UncheckedIOException;
import java.net.Socket;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.net.http.HttpTimeoutException;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/** The origin over HTTP/1.1, driven by the JDK HttpClient. */
@Timeout(60)
class OriginServerHttp1IT {

    private static final long MIB = 1024 * 1024;

    private OriginServer origin;
    private HttpClient client;

    @BeforeEach
    void start() {
        origin = OriginServer.start("origin-a");
        client = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1).build();
    }

    @AfterEach
    void stop() {
        client.shutdownNow();
        origin.close();
    }

    @Test
    void defaultAnswerNamesTheOriginAndRecordsTheRequest() throws Exception {
        HttpResponse<String> response = client.send(
                HttpRequest.newBuilder(origin.uri("/hello?x=1")).header("x-test", "yes").build(),
                HttpResponse.BodyHandlers.ofString());

        assertThat(response.statusCode()).isEqualTo(200);
        assertThat(response.body()).isEqualTo("origin-a GET /hello?x=1\n");
        assertThat(response.headers().firstValue("x-origin")).hasValue("origin-a");
        RecordedRequest request = origin.lastRequest();
        assertThat(request.protocol()).isEqualTo("HTTP/1.1");
        assertThat(request.isHttp2()).isFalse();
        assertThat(request.method()).isEqualTo("GET");
        assertThat(request.path()).isEqualTo("/hello?x=1");
        assertThat(request.authority()).isEqualTo("127.0.0.1:" + origin.port());
        assertThat(request.header("X-Test")).isEqualTo("yes");
        assertThat(request.bodyLength()).isZero();
        assertThat(request.connectionId()).isEqualTo(1);
        assertThat(origin.requestCount()).isEqualTo(1);
        assertThat(origin.requests()).containsExactly(request);
    }

    @Test
    void aRequestBodyIsCountedAndCaptured() throws Exception {
        client.send(HttpRequest.newBuilder(origin.uri("/things")).POST(HttpRequest.BodyPublishers.ofString("hello")).build(),
                HttpResponse.BodyHandlers.discarding());

        assertThat(origin.lastRequest().method()).isEqualTo("POST");
        assertThat(origin.lastRequest().bodyLength()).isEqualTo(5);
        assertThat(origin.lastRequest().body()).isEqualTo("hello");
    }

    @Test
    void statusAnswersThatStatusEvenBehindAPrefix() throws Exception {
        assertThat(get("/status/503").statusCode()).isEqualTo(503);
        assertThat(get("/cluster-b/status/404").statusCode()).isEqualTo(404);
        assertThat(get("/status/700").statusCode()).isEqualTo(400);
        HttpResponse<String> noContent = get("/status/204");
        assertThat(noContent.statusCode()).isEqualTo(204);
        assertThat(noContent.body()).isEmpty();
        assertThat(get("/anything?status=201").statusCode()).isEqualTo(201);
    }

    @Test
    void delayAnswersNoSoonerThanAsked() throws Exception {
        long started = System.nanoTime();
        HttpResponse<String> response = get("/delay/150");

        assertThat(response.statusCode()).isEqualTo(200);
        assertThat(Duration.ofNanos(System.nanoTime() - started)).isGreaterThanOrEqualTo(Duration.ofMillis(150));
    }

    @Test
    void aPendingAnswerDoesNotHoldUpOtherConnections() throws Exception {
        CompletableFuture<HttpResponse<String>> hanging = client.sendAsync(
                HttpRequest.newBuilder(origin.uri("/hang")).build(), HttpResponse.BodyHandlers.ofString());
        origin.awaitRequestCount(1, Duration.ofSeconds(10));

        assertThat(get("/").statusCode()).isEqualTo(200);
        assertThat(hanging).isNotDone();
        assertThat(origin.connectionCount()).isEqualTo(2);
    }

    @Test
    void hangNeverAnswersButIsRecorded() {
        HttpRequest request = HttpRequest.newBuilder(origin.uri("/hang")).timeout(Duration.ofMillis(200)).build();

        assertThatThrownBy(() -> client.send(request, HttpResponse.BodyHandlers.ofString()))
                .isInstanceOf(HttpTimeoutException.class);
        origin.awaitRequestCount(1, Duration.ofSeconds(10));
        assertThat(origin.lastRequest().path()).isEqualTo("/hang");
    }

    @Test
    void resetClosesTheConnectionWithoutAnswering() {
        assertThatThrownBy(() -> get("/reset")).isInstanceOf(IOException.class);
        assertThat(origin.lastRequest().path()).isEqualTo("/reset");
    }

    @Test
    void failNextAnswersTheInjectedStatusThenRecovers() throws Exception {
        origin.failNext(2, 503);

        assertThat(get("/").statusCode()).isEqualTo(503);
        assertThat(get("/echo").statusCode()).isEqualTo(503);
        assertThat(get("/").statusCode()).isEqualTo(200);
        assertThat(origin.requestCount()).isEqualTo(3);
    }

    @Test
    void echoStreamsA64MiBBodyBack() throws Exception {
        // the JDK client only reads an HTTP/1.1 response once it has sent the whole request, so a
        // body larger than the socket buffers needs a client that reads while it writes
        long length = 64 * MIB + 7;
        try (Socket socket = new Socket("127.0.0.1", origin.port())) {
            Thread writer = Thread.ofVirtual().start(() -> writeUpload(socket, length));
            InputStream in = socket.getInputStream();
            String head = readHead(in);

            assertThat(head).startsWith("HTTP/1.1 200 OK").containsIgnoringCase("content-length: " + length);
            assertThat(PatternBodies.readPattern(in, length)).isEqualTo(length);
            writer.join();
        }
        assertThat(origin.lastRequest().bodyLength()).isEqualTo(length);
        assertThat(origin.lastRequest().body()).hasSize(RecordedRequest.BODY_CAPTURE_LIMIT);
    }

    private static void writeUpload(Socket socket, long length) {
        try {
            OutputStream out = socket.getOutputStream();
            out.write(("POST /echo HTTP/1.1\r\nHost: origin\r\nContent-Length: " + length + "\r\n\r\n")
                    .getBytes(StandardCharsets.US_ASCII));
            byte[] chunk = new byte[64 * 1024];
            for (long offset = 0; offset < length; offset += chunk.length) {
                int n = (int) Math.min(chunk.length, length - offset);
                for (int i = 0; i < n; i++) {
                    chunk[i] = BodyPattern.byteAt(offset + i);
                }
                out.write(chunk, 0, n);
            }
            out.flush();
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    private static String readHead(InputStream in) throws IOException {
        StringBuilder head = new StringBuilder();
        while (!head.toString().endsWith("\r\n\r\n")) {
            int b = in.read();
            if (b < 0) {
                throw new EOFException("closed inside the response head: " + head);
            }
            head.append((char) b);
        }
        return head.toString();
    }

    @Test
    void echoStreamsAChunkedUploadBackChunked() throws Exception {
        long length = 256 * 1024 + 1;
        HttpResponse<InputStream> response = client.send(
                HttpRequest.newBuilder(origin.uri("/echo")).POST(PatternBodies.chunkedPublisher(length)).build(),
                HttpResponse.BodyHandlers.ofInputStream());

        assertThat(response.statusCode()).isEqualTo(200);
        assertThat(response.headers().firstValue("transfer-encoding")).hasValue("chunked");
        assertThat(PatternBodies.readPattern(response.body())).isEqualTo(length);
    }

    @Test
    void bytesStreamsAGeneratedBodyOfTheAskedLength() throws Exception {
        long length = 64 * MIB + 3;
        HttpResponse<InputStream> response = client.send(
                HttpRequest.newBuilder(origin.uri("/bytes/" + length)).build(), HttpResponse.BodyHandlers.ofInputStream());

        assertThat(response.statusCode()).isEqualTo(200);
        assertThat(response.headers().firstValueAsLong("content-length")).hasValue(length);
        assertThat(PatternBodies.readPattern(response.body())).isEqualTo(length);
    }

    @Test
    void drainCountsAnUploadWithoutKeepingIt() throws Exception {
        long length = 16 * MIB;
        HttpResponse<String> response = client.send(
                HttpRequest.newBuilder(origin.uri("/drain")).PUT(PatternBodies.publisher(length)).build(),
                HttpResponse.BodyHandlers.ofString());

        assertThat(response.statusCode()).isEqualTo(200);
        assertThat(response.headers().firstValueAsLong("x-received-bytes")).hasValue(length);
        assertThat(origin.lastRequest().bodyLength()).isEqualTo(length);
    }

    @Test
    void headersListsWhatArrived() throws Exception {
        HttpResponse<String> response = client.send(
                HttpRequest.newBuilder(origin.uri("/headers")).header("x-a", "one").header("x-a", "two \"quoted\"").build(),
                HttpResponse.BodyHandlers.ofString());

        assertThat(response.headers().firstValue("content-type")).hasValue("application/json");
        assertThat(response.body())
                .contains("\"origin\":\"origin-a\"")
                .contains("\"protocol\":\"HTTP/1.1\"")
                .contains("\"x-a\":[\"one\",\"two \\\"quoted\\\"\"]")
                .contains("\"host\":[\"127.0.0.1:" + origin.port() + "\"]");
    }

    @Test
    void chunkedAnswersInParts() throws Exception {
        HttpResponse<String> response = get("/chunked?parts=4");

        assertThat(response.headers().firstValue("transfer-encoding")).hasValue("chunked");
        assertThat(response.body()).isEqualTo("part 1 of 4\npart 2 of 4\npart 3 of 4\npart 4 of 4\n");
    }

    @Test
    void keepAliveServesSequentialRequestsOnOneConnection() throws Exception {
        get("/one");
        get("/two");

        assertThat(origin.connectionCount()).isEqualTo(1);
        assertThat(origin.requests()).extracting(RecordedRequest::connectionId).containsExactly(1, 1);
        assertThat(origin.openConnectionCount()).isEqualTo(1);
        origin.closeConnections();
        assertThat(origin.openConnectionCount()).isZero();
    }

    @Test
    void clearRequestsForgetsTheRecords() throws Exception {
        get("/");
        origin.clearRequests();

        assertThat(origin.requestCount()).isZero();
        assertThat(origin.requests()).isEmpty();
        assertThatThrownBy(origin::lastRequest).isInstanceOf(IllegalStateException.class);
    }

    @Test
    void theBuilderRejectsBadOptions() {
        assertThatThrownBy(() -> OriginServer.builder().ioThreads(3).start()).isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> OriginServer.builder().name(" ").start()).isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> origin.failNext(1, 99)).isInstanceOf(IllegalArgumentException.class);
    }

    private HttpResponse<String> get(String path) throws IOException, InterruptedException {
        return client.send(HttpRequest.newBuilder(origin.uri(path)).build(), HttpResponse.BodyHandlers.ofString());
    }
}
