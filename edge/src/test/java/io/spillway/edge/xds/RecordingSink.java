package io.spillway.edge.xds;

import com.google.protobuf.Message;
import io.spillway.edge.config.ConfigException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.function.Predicate;

/** An {@link XdsConfigSink} that records every call and refuses the resources a test names. */
final class RecordingSink implements XdsConfigSink {

  /** One call: the type and the complete set it was given. */
  record Applied(XdsResourceType type, Map<String, Message> resources, String thread) {
    List<String> names() {
      return List.copyOf(resources.keySet());
    }
  }

  private final List<Applied> applied = new CopyOnWriteArrayList<>();
  private volatile Predicate<String> refuse = name -> false;

  /** From now on, refuses any set holding a resource whose name matches. */
  void refuse(Predicate<String> names) {
    this.refuse = names;
  }

  @Override
  public void apply(XdsResourceType type, Map<String, ? extends Message> resources) throws ConfigException {
    for (String name : resources.keySet()) {
      if (refuse.test(name)) {
        throw new ConfigException(type.shortName() + "[\"" + name + "\"].name", "refused by the test sink");
      }
    }
    applied.add(new Applied(type, Map.copyOf(resources), Thread.currentThread().getName()));
  }

  List<Applied> applied() {
    return List.copyOf(applied);
  }

  List<XdsResourceType> order() {
    List<XdsResourceType> order = new ArrayList<>();
    applied.forEach(a -> order.add(a.type()));
    return order;
  }

  /** Waits for a call after the first {@code skip} of that type whose set matches. */
  Applied await(int skip, XdsResourceType type, Predicate<Applied> match) {
    long deadline = System.nanoTime() + ScriptedAdsServer.WAIT.toNanos();
    while (System.nanoTime() < deadline) {
      List<Applied> snapshot = applied();
      for (int i = skip; i < snapshot.size(); i++) {
        if (snapshot.get(i).type() == type && match.test(snapshot.get(i))) {
          return snapshot.get(i);
        }
      }
      try {
        Thread.sleep(5);
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        throw new AssertionError(e);
      }
    }
    throw new AssertionError("no matching " + type + " set within " + Duration.ofSeconds(10) + "; got " + applied);
  }

  Applied await(XdsResourceType type, Predicate<Applied> match) {
    return await(0, type, match);
  }
}
