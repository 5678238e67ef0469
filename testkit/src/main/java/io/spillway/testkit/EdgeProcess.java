package io.spillway.testkit;

import java.io.IOException;
import java.io.RandomAccessFile;
import java.io.UncheckedIOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * The packaged edge running as an OS process, for {@code *E2E} tests: {@code <java> -jar <jar> -c
 * <bootstrap> <args>}, with the JVM that runs the tests and the jar named by the system property
 * {@value #JAR_PROPERTY} (failsafe sets it). Its stdout and stderr go to a log file under
 * {@code target/edge-logs}; failures quote the log's tail. {@link #start} returns once the admin
 * endpoint's {@code GET /ready} answers 200.
 *
 * <pre>{@code
 * try (EdgeProcess edge = EdgeProcess.start(bootstrap, adminPort)) {
 *     ... drive traffic ...
 *     assertThat(edge.stop()).isZero();
 * }
 * }</pre>
 */
public final class EdgeProcess implements AutoCloseable {

    /** The system property holding the path of the packaged edge jar. */
    public static final String JAR_PROPERTY = "spillway.edge.jar";

    private static final Duration STOP_TIMEOUT = Duration.ofSeconds(30);
    private static final Duration POLL_INTERVAL = Duration.ofMillis(50);
    private static final int TAIL_BYTES = 16 * 1024;
    private static final int TAIL_LINES = 60;
    private static final Pattern ADMIN_KEY = Pattern.compile("(?m)^\\s*\"?admin\"?\\s*:");
    private static final Pattern PORT_VALUE = Pattern.compile("\"?port_value\"?\\s*:\\s*(\\d+)");

    private final Process process;
    private final Path logFile;
    private final int adminPort;

    private EdgeProcess(Process process, Path logFile, int adminPort) {
        this.process = process;
        this.logFile = logFile;
        this.adminPort = adminPort;
    }

    /**
     * Starts the edge with a bootstrap file and waits up to 60 s until it is ready. The admin port
     * is read from the file: the first {@code port_value} after its top-level {@code admin} key.
     */
    public static EdgeProcess start(Path bootstrapYaml, String... extraArgs) {
        return builder().bootstrap(bootstrapYaml).adminPort(adminPortOf(bootstrapYaml)).args(extraArgs).start();
    }

    /** Starts the edge with a bootstrap file and waits up to 60 s until its admin port says it is ready. */
    public static EdgeProcess start(Path bootstrapYaml, int adminPort, String... extraArgs) {
        return builder().bootstrap(bootstrapYaml).adminPort(adminPort).args(extraArgs).start();
    }

    /** Runs the edge jar with exactly these arguments to completion (e.g. {@code -c f.yaml --mode validate}). */
    public static Result run(Duration timeout, String... args) {
        return builder().args(args).run(timeout);
    }

    public static Builder builder() {
        return new Builder();
    }

    public long pid() {
        return process.pid();
    }

    public boolean isAlive() {
        return process.isAlive();
    }

    public int adminPort() {
        return adminPort;
    }

    /** {@code http://127.0.0.1:<adminPort><path>}. */
    public URI adminUri(String path) {
        return URI.create("http://127.0.0.1:" + adminPort + path);
    }

    /** The file receiving the process's stdout and stderr. */
    public Path logFile() {
        return logFile;
    }

    /** The last lines of the log. */
    public String logTail() {
        return tail(logFile);
    }

    /**
     * Sends SIGTERM and waits up to 30 s for the process to exit.
     *
     * @return the exit code
     * @throws IllegalStateException when it did not exit in time (it is then killed)
     */
    public int stop() {
        if (!process.isAlive()) {
            return process.exitValue();
        }
        process.destroy();
        if (waitFor(process, STOP_TIMEOUT)) {
            return process.exitValue();
        }
        kill();
        throw new IllegalStateException("edge pid " + pid() + " did not exit within " + STOP_TIMEOUT
                + " of SIGTERM and was killed; log " + logFile + " ends with:\n" + logTail());
    }

    /** Kills the process (SIGKILL) and returns its exit code. */
    public int kill() {
        process.destroyForcibly();
        waitFor(process, STOP_TIMEOUT);
        return process.exitValue();
    }

    /** The resident set size of the process, from {@code /proc/<pid>/status} (Linux). */
    public long rssBytes() {
        Path status = Path.of("/proc", Long.toString(pid()), "status");
        try {
            for (String line : Files.readAllLines(status, StandardCharsets.ISO_8859_1)) {
                if (line.startsWith("VmRSS:")) {
                    String[] parts = line.substring("VmRSS:".length()).trim().split("\\s+");
                    return Long.parseLong(parts[0]) * 1024;
                }
            }
            throw new IllegalStateException("no VmRSS line in " + status);
        } catch (IOException e) {
            throw new UncheckedIOException("cannot read " + status + " (has the edge exited?)", e);
        }
    }

    /** Stops the process if it is still running: SIGTERM, then SIGKILL after 30 s. Never throws. */
    @Override
    public void close() {
        if (!process.isAlive()) {
            return;
        }
        process.destroy();
        if (!waitFor(process, STOP_TIMEOUT)) {
            process.destroyForcibly();
            waitFor(process, STOP_TIMEOUT);
        }
    }

    @Override
    public String toString() {
        return "EdgeProcess[pid " + pid() + ", admin " + adminPort + ", log " + logFile + "]";
    }

    /** The admin port of an Envoy bootstrap file: the first {@code port_value} after its {@code admin} key. */
    static int adminPortOf(Path bootstrap) {
        String text;
        try {
            text = Files.readString(bootstrap);
        } catch (IOException e) {
            throw new UncheckedIOException("cannot read bootstrap " + bootstrap, e);
        }
        Matcher admin = ADMIN_KEY.matcher(text);
        if (admin.find()) {
            Matcher port = PORT_VALUE.matcher(text);
            if (port.find(admin.end())) {
                return Integer.parseInt(port.group(1));
            }
        }
        throw new IllegalArgumentException("no admin port_value in " + bootstrap
                + "; pass the admin port to EdgeProcess.start(bootstrap, adminPort, args...)");
    }

    private static boolean waitFor(Process process, Duration timeout) {
        try {
            return process.waitFor(timeout.toMillis(), TimeUnit.MILLISECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return !process.isAlive();
        }
    }

    private static String tail(Path file) {
        try (RandomAccessFile in = new RandomAccessFile(file.toFile(), "r")) {
            long length = in.length();
            long from = Math.max(0, length - TAIL_BYTES);
            byte[] bytes = new byte[(int) (length - from)];
            in.seek(from);
            in.readFully(bytes);
            List<String> lines = Arrays.asList(new String(bytes, StandardCharsets.UTF_8).split("\n", -1));
            return String.join("\n", lines.subList(Math.max(0, lines.size() - TAIL_LINES), lines.size()));
        } catch (IOException e) {
            return "(cannot read " + file + ": " + e + ")";
        }
    }

    /**
     * The outcome of {@link #run}: exit code and everything the process printed.
     *
     * @param exitCode the process's exit code
     * @param stdout   everything it wrote to standard output
     * @param stderr   everything it wrote to standard error
     */
    public record Result(int exitCode, String stdout, String stderr) {}

    /** Options for starting or running the edge; {@link #start()} and {@link #run(Duration)} validate them. */
    public static final class Builder {

        private Path bootstrap;
        private int adminPort = -1;
        private final List<String> args = new ArrayList<>();
        private final List<String> jvmArgs = new ArrayList<>();
        private final Map<String, String> environment = new LinkedHashMap<>();
        private Path jar;
        private Path java;
        private Duration readyTimeout = Duration.ofSeconds(60);
        private Path logDirectory = Path.of("target", "edge-logs");
        private boolean hotRestart;

        private Builder() {}

        /**
         * Lets the edge open its hot restart socket (the caller passes {@code --base-id} and
         * {@code --restart-epoch}). Without it {@link #start()} adds {@code --disable-hot-restart},
         * so that edges of tests running side by side on one host do not claim the same socket.
         */
        public Builder hotRestart() {
            this.hotRestart = true;
            return this;
        }

        /** The bootstrap file, passed as {@code -c <file>}. */
        public Builder bootstrap(Path bootstrap) {
            this.bootstrap = Objects.requireNonNull(bootstrap, "bootstrap");
            return this;
        }

        /** The admin port polled for {@code /ready}; required by {@link #start()}. */
        public Builder adminPort(int adminPort) {
            this.adminPort = adminPort;
            return this;
        }

        /** Arguments after {@code -c <file>}; adds to earlier ones. */
        public Builder args(String... args) {
            this.args.addAll(List.of(args));
            return this;
        }

        /** JVM options before {@code -jar} (e.g. {@code -Xmx256m}); adds to earlier ones. */
        public Builder jvmArgs(String... jvmArgs) {
            this.jvmArgs.addAll(List.of(jvmArgs));
            return this;
        }

        /** One environment variable on top of the inherited environment. */
        public Builder environment(String name, String value) {
            environment.put(Objects.requireNonNull(name, "name"), Objects.requireNonNull(value, "value"));
            return this;
        }

        /** The jar to run instead of the one named by {@value #JAR_PROPERTY}. */
        public Builder jar(Path jar) {
            this.jar = Objects.requireNonNull(jar, "jar");
            return this;
        }

        /** The {@code java} launcher instead of the one running the tests. */
        public Builder java(Path java) {
            this.java = Objects.requireNonNull(java, "java");
            return this;
        }

        /** How long {@link #start()} waits for {@code /ready}; default 60 s. */
        public Builder readyTimeout(Duration readyTimeout) {
            this.readyTimeout = Objects.requireNonNull(readyTimeout, "readyTimeout");
            return this;
        }

        /** Where log files go; default {@code target/edge-logs}. */
        public Builder logDirectory(Path logDirectory) {
            this.logDirectory = Objects.requireNonNull(logDirectory, "logDirectory");
            return this;
        }

        /**
         * Starts the process and waits until {@code GET /ready} on the admin port answers 200.
         *
         * @throws IllegalStateException when the process exits or is not ready in time (it is then
         *         killed); the message holds the log's tail
         */
        public EdgeProcess start() {
            if (bootstrap == null) {
                throw new IllegalStateException("bootstrap is required to start the edge");
            }
            if (adminPort < 1 || adminPort > 65535) {
                throw new IllegalStateException("adminPort must be 1..65535, got " + adminPort);
            }
            Path logFile = newFile("edge-" + stem(bootstrap) + "-", ".log");
            ProcessBuilder builder = processBuilder().redirectErrorStream(true).redirectOutput(logFile.toFile());
            if (!hotRestart) {
                builder.command().add("--disable-hot-restart");
            }
            EdgeProcess edge = new EdgeProcess(launch(builder, logFile), logFile, adminPort);
            awaitReady(edge);
            return edge;
        }

        /**
         * Runs the process to completion.
         *
         * @throws IllegalStateException when it does not exit within {@code timeout} (it is then killed)
         */
        public Result run(Duration timeout) {
            Path stdout = newFile("edge-run-", ".out");
            Path stderr = newFile("edge-run-", ".err");
            ProcessBuilder builder = processBuilder().redirectOutput(stdout.toFile()).redirectError(stderr.toFile());
            Process process = launch(builder, stderr);
            if (!waitFor(process, timeout)) {
                process.destroyForcibly();
                waitFor(process, STOP_TIMEOUT);
                throw new IllegalStateException("edge " + builder.command() + " did not exit within " + timeout
                        + "; stdout:\n" + tail(stdout) + "\nstderr:\n" + tail(stderr));
            }
            try {
                return new Result(process.exitValue(), Files.readString(stdout, StandardCharsets.UTF_8),
                        Files.readString(stderr, StandardCharsets.UTF_8));
            } catch (IOException e) {
                throw new UncheckedIOException(e);
            }
        }

        private ProcessBuilder processBuilder() {
            List<String> command = new ArrayList<>();
            command.add(javaLauncher().toString());
            command.addAll(jvmArgs);
            command.add("-jar");
            command.add(edgeJar().toString());
            if (bootstrap != null) {
                command.add("-c");
                command.add(bootstrap.toString());
            }
            command.addAll(args);
            ProcessBuilder builder = new ProcessBuilder(command);
            builder.environment().putAll(environment);
            return builder;
        }

        private Process launch(ProcessBuilder builder, Path log) {
            try {
                return builder.start();
            } catch (IOException e) {
                throw new UncheckedIOException("cannot start " + builder.command() + " (log " + log + ")", e);
            }
        }

        private void awaitReady(EdgeProcess edge) {
            long deadline = System.nanoTime() + readyTimeout.toNanos();
            HttpRequest ready = HttpRequest.newBuilder(edge.adminUri("/ready")).timeout(Duration.ofSeconds(2)).GET().build();
            try (HttpClient client = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(1)).build()) {
                while (true) {
                    if (!edge.process.isAlive()) {
                        throw new IllegalStateException("edge exited with code " + edge.process.exitValue()
                                + " before it was ready; log " + edge.logFile + " ends with:\n" + edge.logTail());
                    }
                    if (isReady(client, ready)) {
                        return;
                    }
                    if (System.nanoTime() > deadline) {
                        edge.kill();
                        throw new IllegalStateException("edge was not ready on " + ready.uri() + " within "
                                + readyTimeout + " and was killed; log " + edge.logFile + " ends with:\n" + edge.logTail());
                    }
                    Thread.sleep(POLL_INTERVAL);
                }
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                edge.kill();
                throw new IllegalStateException("interrupted waiting for the edge to be ready", e);
            }
        }

        private static boolean isReady(HttpClient client, HttpRequest ready) throws InterruptedException {
            try {
                return client.send(ready, HttpResponse.BodyHandlers.discarding()).statusCode() == 200;
            } catch (IOException e) {
                return false;
            }
        }

        private Path edgeJar() {
            if (jar != null) {
                return requireFile(jar);
            }
            String property = System.getProperty(JAR_PROPERTY);
            if (property == null || property.isBlank()) {
                throw new IllegalStateException("system property " + JAR_PROPERTY + " is not set; E2E tests run"
                        + " under failsafe (mvn verify), which sets it to the packaged edge jar");
            }
            return requireFile(Path.of(property));
        }

        private Path javaLauncher() {
            if (java != null) {
                return java;
            }
            return ProcessHandle.current().info().command().map(Path::of)
                    .orElse(Path.of(System.getProperty("java.home"), "bin", "java"));
        }

        private Path newFile(String prefix, String suffix) {
            try {
                Files.createDirectories(logDirectory);
                return Files.createTempFile(logDirectory, prefix, suffix);
            } catch (IOException e) {
                throw new UncheckedIOException("cannot create a log file in " + logDirectory, e);
            }
        }

        private static Path requireFile(Path file) {
            if (!Files.isRegularFile(file)) {
                throw new IllegalStateException("edge jar " + file + " does not exist; package the edge first");
            }
            return file;
        }

        private static String stem(Path file) {
            String name = file.getFileName().toString();
            int dot = name.lastIndexOf('.');
            return dot > 0 ? name.substring(0, dot) : name;
        }
    }
}
