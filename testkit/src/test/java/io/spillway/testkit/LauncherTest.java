package io.spillway.testkit;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.fail;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.attribute.FileTime;
import java.nio.file.attribute.PosixFilePermissions;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.stream.Stream;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * The real {@code bin/spillway} against a small copy of the project's layout, with stand-ins for
 * Maven, the JDK, {@code apt-get} and {@code id} first on a PATH that has no real {@code mvn},
 * {@code java}, {@code apt-get} or test clients: it builds only when a build input changed, keeps
 * Maven's output off stdout, and installs or names the clients the tests drive. No real build runs
 * and nothing is installed.
 */
class LauncherTest {

    private static final Path LAUNCHER =
            Path.of(System.getProperty("spillway.launcher", "../bin/spillway")).toAbsolutePath().normalize();

    /** Commands the launcher must only ever find among the stand-ins. */
    private static final Set<String> HIDDEN_COMMANDS =
            Set.of("mvn", "java", "javac", "apt-get", "id", "curl", "h2load", "openssl", "chromium", "chromedriver",
                    "redis-server", "redis-cli");

    private static final String FAKE_MVN = """
            #!/usr/bin/env bash
            # Stands in for Maven: records its arguments, talks on both streams in colour, and packages
            # the jars, or fails when bin/mvn.fails exists.
            here="$(dirname "$0")"
            printf '%s\\n' "$*" >>"$here/mvn.calls"
            printf '\\033[1;34m[INFO]\\033[m Scanning for projects...\\n'
            echo '[WARNING] maven on stderr' >&2
            if [ -e "$here/mvn.fails" ]; then
              echo '[ERROR] COMPILATION ERROR : Edge.java:[1,1] class, interface, enum, or record expected'
              echo '[INFO] BUILD FAILURE'
              exit 1
            fi
            for module in edge central testkit; do
              mkdir -p "$module/target"
              echo jar >"$module/target/spillway-$module-all.jar"
            done
            # Generated after the jars, as the protobuf plugin's sources are.
            mkdir -p edge/target/generated-sources/protobuf
            echo 'class Generated {}' >edge/target/generated-sources/protobuf/Generated.java
            echo '[INFO] BUILD SUCCESS'
            """;

    private static final String FAKE_JAVA = """
            #!/usr/bin/env bash
            # Stands in for a JDK 21: answers the launcher's version probe, records what it runs.
            if [ "$1" = -XshowSettings:properties ]; then
              echo '    java.specification.version = 21' >&2
              exit 0
            fi
            printf '%s\\n' "$*" >>"$(dirname "$0")/../java.calls"
            echo "java $*"
            """;

    private static final String FAKE_APT_GET = """
            #!/usr/bin/env bash
            # Stands in for apt-get: records its arguments; install puts the packages' commands on PATH.
            here="$(dirname "$0")"
            printf '%s\\n' "$*" >>"$here/apt-get.calls"
            [ "$1" = install ] || exit 0
            for package in "$@"; do
              case "$package" in
                curl) command=curl ;;
                nghttp2-client) command=h2load ;;
                openssl) command=openssl ;;
                chromium) command=chromium ;;
                chromium-driver) command=chromedriver ;;
                redis-server) command=redis-server ;;
                *) continue ;;
              esac
              printf '#!/bin/sh\\n' >"$here/$command"
              chmod +x "$here/$command"
            done
            """;

    /** How the copy of the project is kept: as a git checkout or as plain files (a release tarball). */
    enum Layout { GIT_CHECKOUT, PLAIN_DIRECTORY }

    /**
     * The system's tools, linked one by one, without {@link #HIDDEN_COMMANDS}. Not a {@code @TempDir}:
     * its links point outside it, which JUnit's clean-up warns about for each one.
     */
    private static Path systemTools;

    @TempDir
    Path dir;

    private Path project;
    private Path fakes;
    private final AtomicInteger runs = new AtomicInteger();

    record Run(int exitCode, String stdout, String stderr) {}

    @BeforeAll
    static void linkTheSystemToolsExceptTheHiddenOnes() throws IOException {
        systemTools = Files.createTempDirectory("spillway-launcher-tools");
        for (String entry : System.getenv().getOrDefault("PATH", "/usr/bin:/bin").split(":")) {
            Path pathDir = Path.of(entry.isEmpty() ? "." : entry);
            if (!Files.isDirectory(pathDir)) {
                continue;
            }
            try (Stream<Path> commands = Files.list(pathDir)) {
                for (Path command : commands.toList()) {
                    String name = command.getFileName().toString();
                    Path link = systemTools.resolve(name);
                    if (HIDDEN_COMMANDS.contains(name) || Files.exists(link, LinkOption.NOFOLLOW_LINKS)
                            || !Files.isRegularFile(command) || !Files.isExecutable(command)) {
                        continue;
                    }
                    Files.createSymbolicLink(link, command.toAbsolutePath());
                }
            }
        }
    }

    @AfterAll
    static void unlinkTheSystemTools() throws IOException {
        try (Stream<Path> links = Files.list(systemTools)) {
            for (Path link : links.toList()) {
                Files.delete(link);
            }
        }
        Files.delete(systemTools);
    }

    @BeforeEach
    void layOutTheProject() throws IOException {
        assertThat(LAUNCHER).as("the launcher (system property spillway.launcher)").isExecutable();
        project = dir.resolve("project");
        Files.createDirectories(project.resolve("bin"));
        Files.copy(LAUNCHER, project.resolve("bin/spillway"), StandardCopyOption.COPY_ATTRIBUTES);
        write(project.resolve(".gitignore"), "target/\n");
        write(project.resolve("pom.xml"), "<project><modules><module>edge</module></modules></project>\n");
        write(project.resolve("docs/notes.md"), "not a build input\n");
        for (String module : List.of("config", "edge", "central", "testkit")) {
            write(project.resolve(module + "/pom.xml"), "<project><artifactId>" + module + "</artifactId></project>\n");
        }
        write(project.resolve("config/src/main/java/io/spillway/edge/config/Translator.java"), "class Translator {}\n");
        write(project.resolve("edge/src/main/java/io/spillway/edge/Edge.java"), "class Edge {}\n");
        write(project.resolve("edge/src/main/proto/edge.proto"), "syntax = \"proto3\";\n");
        write(project.resolve("central/src/main/java/io/spillway/central/Central.java"), "class Central {}\n");
        write(project.resolve("central/src/main/resources/console/index.html"), "<html></html>\n");
        write(project.resolve("testkit/src/main/java/io/spillway/testkit/Sample.java"), "class Sample {}\n");

        fakes = dir.resolve("fakes");
        writeExecutable(fakes.resolve("bin/mvn"), FAKE_MVN);
        writeExecutable(fakes.resolve("bin/apt-get"), FAKE_APT_GET);
        writeExecutable(fakes.resolve("jdk/bin/java"), FAKE_JAVA);
        writeExecutable(fakes.resolve("jdk/bin/javac"), "#!/bin/sh\n");
        Files.createDirectories(dir.resolve("home"));
    }

    @ParameterizedTest
    @EnumSource(Layout.class)
    void theFirstStartBuildsThenRunsTheJarWithNothingOfMavenOnStdout(Layout layout) throws IOException {
        keepAs(layout);

        Run run = launch("edge", "--help");

        assertThat(run.exitCode()).as(run.stderr()).isZero();
        assertThat(mvnCalls()).singleElement().satisfies(arguments -> assertThat(arguments.split(" "))
                .contains("-B", "-Dstyle.color=never", "package"));
        String edgeStart = "-jar " + project.resolve("edge/target/spillway-edge-all.jar") + " --help";
        assertThat(javaCalls()).singleElement().asString().endsWith(edgeStart);
        assertThat(run.stdout()).isEqualTo("java " + javaCalls().get(0) + "\n");
        assertThat(run.stderr()).contains("building").doesNotContain("[INFO]", "[WARNING]", "\033[");
        assertThat(Files.readString(project.resolve("target/spillway-build.log")))
                .contains("Scanning for projects", "maven on stderr", "BUILD SUCCESS");
    }

    @ParameterizedTest
    @EnumSource(Layout.class)
    void aSecondStartWithNothingChangedDoesNotBuild(Layout layout) throws IOException {
        keepAs(layout);
        launch("central");

        Run run = launch("central", "--http-port", "0");

        assertThat(run.exitCode()).as(run.stderr()).isZero();
        assertThat(mvnCalls()).hasSize(1);
        assertThat(run.stderr()).isEmpty();
        assertThat(javaCalls()).last().asString()
                .endsWith("-jar " + project.resolve("central/target/spillway-central-all.jar") + " --http-port 0");
    }

    @ParameterizedTest
    @EnumSource(Layout.class)
    void filesUnderTargetTouchedSourcesAndNonSourcesDoNotRebuild(Layout layout) throws IOException {
        keepAs(layout);
        launch("edge");
        FileTime later = FileTime.from(Instant.now().plusSeconds(3600));
        Files.setLastModifiedTime(project.resolve("edge/target/generated-sources/protobuf/Generated.java"), later);
        write(project.resolve("edge/target/classes/io/spillway/edge/Edge.class"), "compiled\n");
        write(project.resolve("target/generated-sources/Extra.java"), "class Extra {}\n");
        Files.setLastModifiedTime(project.resolve("edge/src/main/java/io/spillway/edge/Edge.java"), later);
        Files.setLastModifiedTime(project.resolve("pom.xml"), later);
        write(project.resolve("docs/notes.md"), "edited, still not a build input\n");

        launch("edge");
        launch("central");

        assertThat(mvnCalls()).hasSize(1);
        assertThat(javaCalls()).hasSize(3);
    }

    @ParameterizedTest
    @EnumSource(Layout.class)
    void aChangedNewOrDeletedBuildInputRebuilds(Layout layout) throws IOException {
        keepAs(layout);
        launch("edge");

        write(project.resolve("edge/src/main/java/io/spillway/edge/Edge.java"), "final class Edge {}\n");
        launch("edge");
        assertThat(mvnCalls()).as("after a tracked source changed").hasSize(2);

        write(project.resolve("central/src/main/java/io/spillway/central/Added.java"), "class Added {}\n");
        launch("edge");
        assertThat(mvnCalls()).as("after a source was added").hasSize(3);

        Files.delete(project.resolve("central/src/main/resources/console/index.html"));
        launch("edge");
        assertThat(mvnCalls()).as("after a resource was deleted").hasSize(4);

        write(project.resolve("testkit/pom.xml"), "<project><artifactId>testkit</artifactId><version>2</version></project>\n");
        launch("edge");
        assertThat(mvnCalls()).as("after a module's pom.xml changed").hasSize(5);

        write(project.resolve("config/src/main/java/io/spillway/edge/config/Translator.java"),
                "final class Translator {}\n");
        launch("edge");
        assertThat(mvnCalls()).as("after a source of the config module changed").hasSize(6);

        launch("edge");
        assertThat(mvnCalls()).as("with nothing changed since").hasSize(6);
    }

    @ParameterizedTest
    @EnumSource(Layout.class)
    void aMissingJarRebuilds(Layout layout) throws IOException {
        keepAs(layout);
        launch("edge");

        Files.delete(project.resolve("testkit/target/spillway-testkit-all.jar"));
        launch("edge");

        assertThat(mvnCalls()).hasSize(2);
    }

    @Test
    void theBuildCommandAlwaysBuildsAndKeepsStdoutEmpty() throws IOException {
        launch("build");

        Run run = launch("build");

        assertThat(run.exitCode()).as(run.stderr()).isZero();
        assertThat(run.stdout()).isEmpty();
        assertThat(mvnCalls()).hasSize(2);
        assertThat(javaCalls()).isEmpty();
    }

    @Test
    void aFailedBuildExitsNonZeroWithTheLogsEndOnStderrAndIsRetriedNextTime() throws IOException {
        launch("edge");
        write(project.resolve("edge/src/main/java/io/spillway/edge/Edge.java"), "broken\n");
        write(fakes.resolve("bin/mvn.fails"), "");

        Run failed = launch("edge");

        assertThat(failed.exitCode()).isNotZero();
        assertThat(failed.stdout()).isEmpty();
        assertThat(failed.stderr())
                .contains("[ERROR] COMPILATION ERROR : Edge.java", "BUILD FAILURE", "build failed", "spillway-build.log");
        assertThat(javaCalls()).as("the edge does not start on the old jar").hasSize(1);

        Files.delete(fakes.resolve("bin/mvn.fails"));
        Run retried = launch("edge");

        assertThat(retried.exitCode()).as(retried.stderr()).isZero();
        assertThat(mvnCalls()).as("the failed build left no stamp behind").hasSize(3);
    }

    @Test
    void helpPrintsTheCommandsWithoutBuilding() throws IOException {
        Run run = launch("help");

        assertThat(run.exitCode()).isZero();
        assertThat(run.stdout()).contains("bin/spillway demo", "bin/spillway test", "bin/spillway edge", "bin/spillway build")
                .doesNotContain("#!", "set -euo");
        assertThat(mvnCalls()).isEmpty();
    }

    @Test
    void testNamesTheMissingClientsAndStopsBeforeMavenWhenNotRoot() throws IOException {
        pretendUserId(1000);

        Run run = launch("test");

        assertThat(run.exitCode()).isNotZero();
        assertThat(run.stderr()).contains("curl h2load openssl chromium chromedriver redis-server",
                "apt-get install curl nghttp2-client openssl chromium chromium-driver redis-server");
        assertThat(run.stdout()).isEmpty();
        assertThat(mvnCalls()).isEmpty();
        assertThat(aptGetCalls()).isEmpty();
    }

    @Test
    void testNamesOnlyWhatIsMissingWhenRootHasNoAptGet() throws IOException {
        pretendUserId(0);
        Files.delete(fakes.resolve("bin/apt-get"));
        writeExecutable(fakes.resolve("bin/curl"), "#!/bin/sh\n");
        writeExecutable(fakes.resolve("bin/openssl"), "#!/bin/sh\n");

        Run run = launch("test");

        assertThat(run.exitCode()).isNotZero();
        assertThat(run.stderr()).contains("h2load", "apt-get install nghttp2-client").doesNotContain("curl");
        assertThat(mvnCalls()).isEmpty();
    }

    @Test
    void testAsRootInstallsTheMissingClientsThenRunsTheSuite() throws IOException {
        pretendUserId(0);
        writeExecutable(fakes.resolve("bin/curl"), "#!/bin/sh\n");

        Run run = launch("test", "-pl", "edge");

        assertThat(run.exitCode()).as(run.stderr()).isZero();
        List<String> apt = aptGetCalls();
        assertThat(apt).hasSize(2);
        assertThat(apt.get(0)).startsWith("update");
        assertThat(apt.get(1)).startsWith("install").contains(" -y ").endsWith(" nghttp2-client openssl chromium chromium-driver redis-server");
        assertThat(mvnCalls()).containsExactly("-B verify -pl edge");
    }

    @Test
    void testWithEveryClientPresentNeitherUpdatesNorInstalls() throws IOException {
        pretendUserId(0);
        for (String client : List.of("curl", "h2load", "openssl", "chromium", "chromedriver", "redis-server")) {
            writeExecutable(fakes.resolve("bin/" + client), "#!/bin/sh\n");
        }

        Run run = launch("test");

        assertThat(run.exitCode()).as(run.stderr()).isZero();
        assertThat(aptGetCalls()).isEmpty();
        assertThat(mvnCalls()).containsExactly("-B verify");
    }

    @Test
    void testStartsTheInstalledRedisWhenNothingAnswers() throws IOException {
        pretendUserId(0);
        for (String client : List.of("curl", "h2load", "openssl", "chromium", "chromedriver")) {
            writeExecutable(fakes.resolve("bin/" + client), "#!/bin/sh\n");
        }
        // redis-cli ping fails until the stand-in redis-server has run
        writeExecutable(fakes.resolve("bin/redis-cli"), "#!/bin/sh\n[ -e \"$(dirname \"$0\")/redis.started\" ]\n");
        writeExecutable(fakes.resolve("bin/redis-server"),
                "#!/bin/sh\nprintf '%s\\n' \"$*\" >>\"$(dirname \"$0\")/redis-server.calls\"\n"
                        + "touch \"$(dirname \"$0\")/redis.started\"\n");

        Run run = launch("test");

        assertThat(run.exitCode()).as(run.stderr()).isZero();
        assertThat(Files.readAllLines(fakes.resolve("bin/redis-server.calls")))
                .containsExactly("--daemonize yes --port 6379 --bind 127.0.0.1 --save ");
        assertThat(run.stderr()).contains("starting redis-server on 127.0.0.1:6379");
        assertThat(mvnCalls()).containsExactly("-B verify");

        Run again = launch("test");

        assertThat(again.exitCode()).as(again.stderr()).isZero();
        assertThat(Files.readAllLines(fakes.resolve("bin/redis-server.calls"))).as("a Redis that answers is left alone")
                .hasSize(1);
    }

    @Test
    void aDemoOrEdgeRightAfterTheFullTestsDoesNotBuildAgain() throws IOException {
        pretendUserId(0);
        for (String client : List.of("curl", "h2load", "openssl", "chromium", "chromedriver", "redis-server")) {
            writeExecutable(fakes.resolve("bin/" + client), "#!/bin/sh\n");
        }
        launch("test");

        Run run = launch("edge", "--help");

        assertThat(run.exitCode()).as(run.stderr()).isZero();
        assertThat(mvnCalls()).containsExactly("-B verify");
        assertThat(run.stderr()).isEmpty();
    }

    private void keepAs(Layout layout) {
        if (layout == Layout.PLAIN_DIRECTORY) {
            return;
        }
        assumeTrue(Files.isExecutable(systemTools.resolve("git")), "git is not installed");
        Run init = exec(project, "git", "-c", "init.defaultBranch=main", "init", "-q");
        assertThat(init.exitCode()).as(init.stderr()).isZero();
        Run add = exec(project, "git", "add", "-A");
        assertThat(add.exitCode()).as(add.stderr()).isZero();
    }

    private void pretendUserId(int uid) throws IOException {
        writeExecutable(fakes.resolve("bin/id"), "#!/bin/sh\n[ \"$1\" = -u ] && echo " + uid + "\n");
    }

    private Run launch(String... arguments) {
        String[] command = Stream.concat(Stream.of(project.resolve("bin/spillway").toString()), Stream.of(arguments))
                .toArray(String[]::new);
        return exec(project, command);
    }

    private Run exec(Path workingDir, String... command) {
        int n = runs.incrementAndGet();
        Path stdout = dir.resolve("run-" + n + ".out");
        Path stderr = dir.resolve("run-" + n + ".err");
        ProcessBuilder builder = new ProcessBuilder(command).directory(workingDir.toFile())
                .redirectOutput(stdout.toFile()).redirectError(stderr.toFile());
        Map<String, String> env = builder.environment();
        env.clear();
        env.put("PATH", fakes.resolve("bin") + ":" + systemTools);
        env.put("HOME", dir.resolve("home").toString());
        env.put("JAVA_HOME", fakes.resolve("jdk").toString());
        env.put("GIT_CONFIG_NOSYSTEM", "1");
        env.put("LC_ALL", "C");
        try {
            Process process = builder.start();
            if (!process.waitFor(60, TimeUnit.SECONDS)) {
                process.destroyForcibly();
                fail("%s did not finish in 60 s", String.join(" ", command));
            }
            return new Run(process.exitValue(), Files.readString(stdout), Files.readString(stderr));
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException(e);
        }
    }

    private List<String> mvnCalls() throws IOException {
        return lines(fakes.resolve("bin/mvn.calls"));
    }

    private List<String> javaCalls() throws IOException {
        return lines(fakes.resolve("jdk/java.calls"));
    }

    private List<String> aptGetCalls() throws IOException {
        return lines(fakes.resolve("bin/apt-get.calls"));
    }

    private static List<String> lines(Path file) throws IOException {
        return Files.exists(file) ? Files.readAllLines(file) : List.of();
    }

    private static void write(Path file, String text) throws IOException {
        Files.createDirectories(file.getParent());
        Files.writeString(file, text);
    }

    private static void writeExecutable(Path file, String text) throws IOException {
        write(file, text);
        Files.setPosixFilePermissions(file, PosixFilePermissions.fromString("rwxr-xr-x"));
    }
}
