package io.spillway.testkit;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import java.io.IOException;
import java.io.OutputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.jar.Attributes;
import java.util.jar.JarEntry;
import java.util.jar.JarOutputStream;
import java.util.jar.Manifest;
import javax.tools.JavaCompiler;
import javax.tools.ToolProvider;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@link EdgeProcess} against a stand-in edge jar compiled here: it reads {@code -c <file>}, serves
 * {@code /ready} on the bootstrap's admin port, and obeys {@code --mode validate|crash|stall}.
 */
@Timeout(120)
class EdgeProcessIT {

    private static final String FAKE_EDGE = """
            import com.sun.net.httpserver.HttpServer;
            import java.net.InetSocketAddress;
            import java.nio.file.Files;
            import java.nio.file.Path;
            import java.util.regex.Matcher;
            import java.util.regex.Pattern;

            public class FakeEdge {
                public static void main(String[] args) throws Exception {
                    String config = null;
                    String mode = "serve";
                    for (int i = 0; i < args.length; i++) {
                        if (args[i].equals("-c")) config = args[++i];
                        else if (args[i].equals("--mode")) mode = args[++i];
                    }
                    if (mode.equals("validate")) {
                        System.out.println("valid: " + config);
                        System.err.println("1 warning");
                        System.exit(2);
                    }
                    if (mode.equals("crash")) {
                        System.out.println("boom: listener address already in use");
                        System.exit(3);
                    }
                    String text = Files.readString(Path.of(config));
                    Matcher port = Pattern.compile("port_value: (\\\\d+)").matcher(text);
                    port.find(text.indexOf("admin:"));
                    HttpServer admin = HttpServer.create(new InetSocketAddress("127.0.0.1", Integer.parseInt(port.group(1))), 0);
                    if (!mode.equals("stall")) {
                        admin.createContext("/ready", exchange -> {
                            exchange.sendResponseHeaders(200, -1);
                            exchange.close();
                        });
                    }
                    admin.start();
                    System.out.println("fake edge serving");
                    Runtime.getRuntime().addShutdownHook(new Thread(() -> System.out.println("fake edge draining")));
                    Thread.currentThread().join();
                }
            }
            """;

    @TempDir
    static Path work;

    private static Path jar;

    @BeforeAll
    static void buildFakeEdge() throws IOException {
        Path sources = Files.createDirectories(work.resolve("src"));
        Path classes = Files.createDirectories(work.resolve("classes"));
        Path source = Files.writeString(sources.resolve("FakeEdge.java"), FAKE_EDGE);
        JavaCompiler compiler = ToolProvider.getSystemJavaCompiler();
        assertThat(compiler.run(null, null, null, "-d", classes.toString(), source.toString())).isZero();

        Manifest manifest = new Manifest();
        manifest.getMainAttributes().put(Attributes.Name.MANIFEST_VERSION, "1.0");
        manifest.getMainAttributes().put(Attributes.Name.MAIN_CLASS, "FakeEdge");
        jar = work.resolve("fake-edge.jar");
        try (OutputStream file = Files.newOutputStream(jar); JarOutputStream out = new JarOutputStream(file, manifest)) {
            out.putNextEntry(new JarEntry("FakeEdge.class"));
            out.write(Files.readAllBytes(classes.resolve("FakeEdge.class")));
            out.closeEntry();
        }
    }

    @Test
    void startWaitsForReadinessAndStopSendsSigterm() throws IOException {
        int adminPort = FreePorts.pick();
        Path bootstrap = bootstrap(adminPort);

        EdgeProcess edge = EdgeProcess.builder().jar(jar).bootstrap(bootstrap)
                .adminPort(EdgeProcess.adminPortOf(bootstrap)).logDirectory(work.resolve("logs")).start();
        try (edge) {
            assertThat(edge.isAlive()).isTrue();
            assertThat(edge.pid()).isPositive();
            assertThat(edge.adminPort()).isEqualTo(adminPort);
            assertThat(edge.rssBytes()).isGreaterThan(1024 * 1024);
            assertThat(edge.adminUri("/ready").toString()).isEqualTo("http://127.0.0.1:" + adminPort + "/ready");

            int exitCode = edge.stop();

            assertThat(exitCode).isEqualTo(143);
            assertThat(edge.isAlive()).isFalse();
            assertThat(Files.readString(edge.logFile())).contains("fake edge serving", "fake edge draining");
        }
    }

    @Test
    void killEndsTheProcessAtOnce() throws IOException {
        Path bootstrap = bootstrap(FreePorts.pick());
        try (EdgeProcess edge = EdgeProcess.builder().jar(jar).bootstrap(bootstrap)
                .adminPort(EdgeProcess.adminPortOf(bootstrap)).logDirectory(work.resolve("logs")).start()) {
            assertThat(edge.kill()).isEqualTo(137);
            assertThat(edge.logTail()).doesNotContain("fake edge draining");
        }
    }

    @Test
    void aProcessThatExitsEarlyFailsFastWithItsLog() throws IOException {
        Path bootstrap = bootstrap(FreePorts.pick());

        assertThatThrownBy(() -> EdgeProcess.builder().jar(jar).bootstrap(bootstrap).adminPort(FreePorts.pick())
                .args("--mode", "crash").logDirectory(work.resolve("logs")).start())
                .isInstanceOf(IllegalStateException.class)
                .hasMessageContaining("exited with code 3")
                .hasMessageContaining("boom: listener address already in use");
    }

    @Test
    void aProcessThatNeverGetsReadyIsKilledAfterTheTimeout() throws IOException {
        Path bootstrap = bootstrap(FreePorts.pick());

        assertThatThrownBy(() -> EdgeProcess.builder().jar(jar).bootstrap(bootstrap)
                .adminPort(EdgeProcess.adminPortOf(bootstrap)).args("--mode", "stall")
                .readyTimeout(Duration.ofMillis(500)).logDirectory(work.resolve("logs")).start())
                .isInstanceOf(IllegalStateException.class)
                .hasMessageContaining("was not ready")
                .hasMessageContaining("fake edge serving");
    }

    @Test
    void runCapturesExitCodeAndOutput() throws IOException {
        Path bootstrap = bootstrap(FreePorts.pick());

        EdgeProcess.Result result = EdgeProcess.builder().jar(jar).logDirectory(work.resolve("logs"))
                .args("-c", bootstrap.toString(), "--mode", "validate").run(Duration.ofSeconds(60));

        assertThat(result.exitCode()).isEqualTo(2);
        assertThat(result.stdout()).isEqualTo("valid: " + bootstrap + "\n");
        assertThat(result.stderr()).isEqualTo("1 warning\n");
    }

    @Test
    void theAdminPortIsReadFromYamlOrJsonBootstraps() throws IOException {
        Path yaml = bootstrap(9901);
        Path json = Files.writeString(work.resolve("bootstrap.json"), """
                {"node": {"id": "n"}, "static_resources": {"listeners": [{"address": {"socket_address":
                  {"address": "127.0.0.1", "port_value": 10000}}}]},
                 "admin": {"address": {"socket_address": {"address": "127.0.0.1", "port_value": 9902}}}}
                """);
        Path none = Files.writeString(work.resolve("no-admin.yaml"), "node:\n  id: n\n");

        assertThat(EdgeProcess.adminPortOf(yaml)).isEqualTo(9901);
        assertThat(EdgeProcess.adminPortOf(json)).isEqualTo(9902);
        assertThatThrownBy(() -> EdgeProcess.adminPortOf(none)).isInstanceOf(IllegalArgumentException.class);
    }

    @Test
    void withoutTheJarPropertyStartExplainsWhatIsMissing() throws IOException {
        assumeTrue(System.getProperty(EdgeProcess.JAR_PROPERTY) == null, "failsafe sets the property");
        Path bootstrap = bootstrap(FreePorts.pick());

        assertThatThrownBy(() -> EdgeProcess.start(bootstrap))
                .isInstanceOf(IllegalStateException.class)
                .hasMessageContaining(EdgeProcess.JAR_PROPERTY);
    }

    private static Path bootstrap(int adminPort) throws IOException {
        return Files.writeString(Files.createTempFile(work, "bootstrap-", ".yaml"), """
                node:
                  id: test-edge
                static_resources:
                  listeners:
                  - address:
                      socket_address: { address: 127.0.0.1, port_value: 10000 }
                admin:
                  address:
                    socket_address:
                      address: 127.0.0.1
                      port_value: %d
                """.formatted(adminPort));
    }
}
