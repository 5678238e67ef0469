package io.spillway.testkit;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/** The origin against an independent client (curl, built on nghttp2), when curl is installed. */
@Timeout(120)
class OriginServerCurlIT {

    @TempDir
    Path work;

    private OriginServer origin;

    @BeforeAll
    static void requireCurlWithHttp2() {
        try {
            Process version = new ProcessBuilder("curl", "-V").redirectErrorStream(true).start();
            String text = new String(version.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
            assumeTrue(version.waitFor(10, TimeUnit.SECONDS) && text.contains("HTTP2"), "curl lacks HTTP/2");
        } catch (IOException | InterruptedException e) {
            assumeTrue(false, "no curl: " + e);
        }
    }

    @BeforeEach
    void start() {
        origin = OriginServer.start("origin-curl");
    }

    @AfterEach
    void stop() {
        origin.close();
    }

    @Test
    void curlWithPriorKnowledgeSpeaksHttp2() throws Exception {
        String output = curl("--http2-prior-knowledge", "-sS", "-D", "-", origin.uri("/hello").toString());

        assertThat(output).startsWith("HTTP/2 200").contains("x-origin: origin-curl").endsWith("origin-curl GET /hello\n");
        assertThat(origin.lastRequest().isHttp2()).isTrue();
    }

    @Test
    void curlEchoesAnUploadOverBothProtocols() throws Exception {
        Path upload = work.resolve("upload.bin");
        byte[] body = new byte[8 * 1024 * 1024 + 3];
        for (int i = 0; i < body.length; i++) {
            body[i] = BodyPattern.byteAt(i);
        }
        Files.write(upload, body);

        for (String protocol : List.of("--http2-prior-knowledge", "--http1.1")) {
            Path download = work.resolve("download" + protocol + ".bin");
            String status = curl(protocol, "-sS", "--data-binary", "@" + upload, "-o", download.toString(),
                    "-w", "%{http_code}", origin.uri("/echo").toString());

            assertThat(status).isEqualTo("200");
            assertThat(Files.mismatch(upload, download)).as(protocol).isEqualTo(-1L);
        }
        assertThat(origin.requests()).extracting(RecordedRequest::protocol).containsExactly("HTTP/2", "HTTP/1.1");
    }

    private static String curl(String... args) throws IOException, InterruptedException {
        List<String> command = new ArrayList<>(List.of("curl", "--max-time", "60"));
        command.addAll(List.of(args));
        Process process = new ProcessBuilder(command).redirectError(ProcessBuilder.Redirect.DISCARD).start();
        String output = new String(process.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        assertThat(process.waitFor(90, TimeUnit.SECONDS)).isTrue();
        assertThat(process.exitValue()).as("curl exit code, output: %s", output).isZero();
        return output.replace("\r\n", "\n");
    }
}
