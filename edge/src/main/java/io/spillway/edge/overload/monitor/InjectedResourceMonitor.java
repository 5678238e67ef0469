package io.spillway.edge.overload.monitor;

import java.io.IOException;
import java.nio.file.Path;

/**
 * {@code envoy.resource_monitors.injected_resource}: the pressure is the number written in a file,
 * for tests and drills. The file is read at every refresh; a missing file, a file that is not a
 * number, or a number outside [0, 1] is a failed update (the last pressure stays).
 */
public final class InjectedResourceMonitor extends PolledMonitor {

  private final Path file;

  public InjectedResourceMonitor(Path file) {
    this.file = file;
  }

  @Override
  protected double readPressure() throws IOException, MonitorReadException {
    String text = CgroupFiles.read(file);
    double pressure;
    try {
      pressure = Double.parseDouble(text);
    } catch (NumberFormatException e) {
      throw new MonitorReadException(file + ": failed to parse injected resource pressure \"" + text + "\"", e);
    }
    if (!(pressure >= 0.0 && pressure <= 1.0)) {
      throw new MonitorReadException(file + ": pressure out of range: " + text);
    }
    return pressure;
  }
}
