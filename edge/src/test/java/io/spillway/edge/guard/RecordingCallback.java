package io.spillway.edge.guard;

import java.util.ArrayList;
import java.util.List;

/** Records what a queued call was told, tagged with its name. */
final class RecordingCallback implements QueueCallback {

  /** Shared log of "name:admitted" / "name:queue_timeout". */
  final List<String> log;
  final String name;
  Permit permit;
  Refusal refusal;

  RecordingCallback(List<String> log, String name) {
    this.log = log;
    this.name = name;
  }

  static RecordingCallback unused() {
    return new RecordingCallback(new ArrayList<>(), "unused");
  }

  @Override
  public void onAdmitted(Permit permit) {
    this.permit = permit;
    log.add(name + ":admitted");
  }

  @Override
  public void onRefused(Refusal reason) {
    this.refusal = reason;
    log.add(name + ":" + reason.label());
  }
}
