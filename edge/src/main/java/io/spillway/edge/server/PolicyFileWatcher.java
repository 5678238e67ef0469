package io.spillway.edge.server;

import io.spillway.edge.stats.Counter;
import io.spillway.edge.stats.Scope;
import io.spillway.policy.DeploymentDefaults;
import io.spillway.policy.EffectivePolicy;
import io.spillway.policy.ParseResult;
import io.spillway.policy.PolicyJson;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.function.Consumer;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Re-reads the {@code --overload-policy} file when its content changes. Checked on the main thread
 * at a fixed interval by content, not by file events, so that the atomic symlink swap a Kubernetes
 * ConfigMap volume does and editors that replace the file are both seen. A valid new policy is
 * handed to the server's one apply path; an invalid or unreadable file is logged with its first
 * problem and counted, and the last good policy stays in force.
 */
final class PolicyFileWatcher implements Runnable {
  private static final Logger log = LoggerFactory.getLogger(PolicyFileWatcher.class);

  private final Path file;
  private final DeploymentDefaults defaults;
  private final Consumer<EffectivePolicy> apply;
  private final Counter reloaded;
  private final Counter rejected;
  private byte[] lastContent;
  private String lastProblem;

  /**
   * @param initialContent the bytes the start-up policy was read from (no reload for those)
   * @param stats where {@code policy_file.reload_success} and {@code policy_file.reload_rejected} live
   */
  PolicyFileWatcher(Path file, byte[] initialContent, DeploymentDefaults defaults, Consumer<EffectivePolicy> apply,
      Scope stats) {
    this.file = file;
    this.lastContent = initialContent.clone();
    this.defaults = defaults;
    this.apply = apply;
    this.reloaded = stats.counter("reload_success");
    this.rejected = stats.counter("reload_rejected");
  }

  @Override
  public void run() {
    byte[] content;
    try {
      content = Files.readAllBytes(file);
    } catch (IOException e) {
      problem("cannot be read (" + e.getMessage() + ")");
      return;
    }
    if (Arrays.equals(content, lastContent)) {
      return;
    }
    lastContent = content;
    ParseResult parsed = PolicyJson.parse(new String(content, java.nio.charset.StandardCharsets.UTF_8), defaults);
    if (!parsed.valid()) {
      problem(parsed.firstProblem().orElseThrow().message());
      return;
    }
    lastProblem = null;
    reloaded.inc();
    log.info("--overload-policy {}: changed; applying it", file);
    apply.accept(EffectivePolicy.resolve(parsed.policy(), defaults));
  }

  /** Logs and counts a problem once, not again at every check while the file stays the same. */
  private void problem(String what) {
    if (!what.equals(lastProblem)) {
      rejected.inc();
      log.warn("--overload-policy {}: {}; the last good policy stays in force", file, what);
    }
    lastProblem = what;
  }
}
