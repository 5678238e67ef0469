package io.spillway.edge.xds;

import io.spillway.edge.stats.StatsStore;
import java.nio.file.Path;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.io.TempDir;

/** What the ADS client ITs share: a scripted server, the client under test, its stats and sink. */
abstract class AdsClientIT {

  @TempDir
  Path dir;

  final StatsStore stats = new StatsStore();
  final RecordingSink sink = new RecordingSink();
  ScriptedAdsServer server;
  AdsClient client;

  @AfterEach
  void tearDown() throws Exception {
    if (client != null) {
      client.close();
    }
    if (server != null) {
      server.close();
    }
  }
}
