package io.spillway.edge.server;

import static org.assertj.core.api.Assertions.assertThat;

import io.spillway.edge.admission.AdmissionController;
import io.spillway.edge.admission.AdmissionPermit;
import io.spillway.edge.admission.Tier;
import io.spillway.edge.guard.GuardRegistry;
import io.spillway.edge.stats.StatsStore;
import io.spillway.policy.DeploymentDefaults;
import io.spillway.policy.EffectivePolicy;
import io.spillway.report.EdgeReportProto;
import io.spillway.report.EdgeReportProto.EdgeReport;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** The report's gauges are admission's and the guards' own values. */
class EdgeReportsTest {

  @Test
  void theReportCarriesAdmissionAndEveryGuardedPeer() {
    StatsStore stats = new StatsStore();
    EffectivePolicy policy = EffectivePolicy.resolve(null,
        DeploymentDefaults.fromEnvironment(Map.of("HTTP_ADMISSION_MODE", "enforce", "HTTP_CLIENT_GUARD_MODE", "shadow")));
    AdmissionController admission = new AdmissionController(policy.inbound(), stats);
    GuardRegistry guards = GuardRegistry.build(List.of("auth", "api"), policy.outbound(), stats);
    List<AdmissionPermit> held = new ArrayList<>();
    int refused = 0;
    for (int i = 0; i < admission.limit() + 3; i++) {
      AdmissionPermit permit = admission.tryAcquire(Tier.PROXY);
      if (permit.refused()) {
        refused++;
      } else {
        held.add(permit);
      }
    }

    EdgeReport report = EdgeReports.gauges(admission, guards).build();

    assertThat(refused).isEqualTo(3);
    assertThat(report.getAdmission().getMode()).isEqualTo("enforce");
    assertThat(report.getAdmission().getLimit()).isEqualTo(admission.limit());
    assertThat(report.getAdmission().getInFlight()).isEqualTo(held.size());
    assertThat(report.getAdmission().getRefusedList()).extracting(EdgeReportProto.TierRefusals::getTier)
        .containsExactly("start", "continuation", "proxy");
    assertThat(report.getAdmission().getRefused(2).getEnforce()).isEqualTo(3);
    assertThat(report.getAdmission().getRefused(2).getShadow()).isZero();
    assertThat(report.getPeersList()).extracting(EdgeReportProto.Peer::getName).containsExactlyInAnyOrder("auth", "api");
    assertThat(report.getPeers(0).getBreaker()).isEqualTo(EdgeReportProto.BreakerState.CLOSED);
    assertThat(report.getPeers(0).getInFlight()).isZero();
  }
}
