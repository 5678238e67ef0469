package io.spillway.edge.server;

import io.spillway.edge.accesslog.PolicyAccessLog;
import io.spillway.edge.admission.AdmissionController;
import io.spillway.edge.filters.policylimit.PolicyRateLimits;
import io.spillway.edge.guard.GuardRegistry;
import io.spillway.edge.stats.Scope;
import io.spillway.policy.DeploymentDefaults;
import io.spillway.policy.EffectivePolicy;
import io.spillway.policy.OverloadPolicy;
import io.spillway.policy.RateLimitsPolicy;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Optional;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Where the edge's overload policy comes from, and the one path that applies a new one: the control
 * plane's policy wins while it sends one for this edge; otherwise the policy file's, both over the
 * deployment defaults. The control plane's rate limits go to the limiter every chain shares, its
 * access log to the logger every connection manager writes after its bootstrap ones.
 * Main thread only.
 */
final class PolicySources {
  private static final Logger log = LoggerFactory.getLogger(PolicySources.class);

  private final DeploymentDefaults defaults;
  private final AdmissionController admission;
  private final GuardRegistry guards;
  private final PolicyRateLimits rateLimits;
  private final PolicyAccessLog accessLog;
  private final Path accessLogDirectory;
  private EffectivePolicy filePolicy;
  private Optional<OverloadPolicy> controlPlanePolicy = Optional.empty();

  PolicySources(EffectivePolicy filePolicy, DeploymentDefaults defaults, AdmissionController admission,
      GuardRegistry guards, PolicyRateLimits rateLimits, PolicyAccessLog accessLog, Path accessLogDirectory) {
    this.accessLog = accessLog;
    this.accessLogDirectory = accessLogDirectory;
    this.filePolicy = filePolicy;
    this.defaults = defaults;
    this.admission = admission;
    this.guards = guards;
    this.rateLimits = rateLimits;
  }

  /** The policy resource → the validated overload policy (over the deployment defaults), rate limits and access log. */
  ControlPlanePolicy decode(com.google.protobuf.Message message) {
    return ControlPlanePolicy.decode((io.spillway.policy.v1.OverloadPolicy) message, defaults, accessLogDirectory,
        rateLimits.fleetAvailable());
  }

  /** A new policy file content was accepted. */
  void setFilePolicy(EffectivePolicy policy) {
    filePolicy = policy;
    apply();
  }

  /** The control plane's policy, or empty when it has none for this edge. */
  void setControlPlanePolicy(Optional<ControlPlanePolicy> policy) {
    controlPlanePolicy = policy.flatMap(ControlPlanePolicy::overload);
    rateLimits.apply(policy.map(ControlPlanePolicy::rateLimits).orElse(RateLimitsPolicy.EMPTY));
    accessLog.apply(policy.flatMap(ControlPlanePolicy::accessLog));
    apply();
  }

  /** Re-reads the policy file every second on {@code control}, when there is one. */
  void watchFile(Optional<Path> policyFile, ScheduledExecutorService control, Scope root) {
    if (policyFile.isEmpty()) {
      return;
    }
    Path file = policyFile.get();
    byte[] initial;
    try {
      initial = Files.readAllBytes(file);
    } catch (IOException e) {
      initial = new byte[0];
    }
    PolicyFileWatcher watcher = new PolicyFileWatcher(file, initial, defaults, this::setFilePolicy,
        root.scope("policy_file"));
    control.scheduleWithFixedDelay(watcher, 1, 1, TimeUnit.SECONDS);
  }

  private void apply() {
    EffectivePolicy effective = controlPlanePolicy.isPresent()
        ? EffectivePolicy.resolve(controlPlanePolicy.get(), defaults)
        : filePolicy;
    admission.applyPolicy(effective.inbound());
    guards.applyPolicy(effective.outbound());
    log.info("overload policy from {}: inbound {}, outbound {}",
        controlPlanePolicy.isPresent() ? "the control plane" : "the deployment", effective.inbound().mode(),
        effective.outbound().mode());
  }
}
