package io.spillway.edge.filters.lua;

import io.spillway.edge.lua.LuaScript;
import io.spillway.edge.lua.LuaScriptException;
import io.spillway.edge.upstream.Worker;

/**
 * A script's copy on each worker, made on the worker the first time one of its requests needs
 * it: slot {@code i} is only ever touched by worker {@code i}, so there is no lock. A copy whose
 * top level fails there (it ran once at translation; a script that behaves differently on a
 * worker) is never called.
 */
final class LuaScriptSlots {
  private final LuaScript script;
  private final WorkerScript[] perWorker;
  private final boolean[] broken;

  LuaScriptSlots(LuaScript script, int workers) {
    this.script = script;
    this.perWorker = new WorkerScript[Math.max(1, workers)];
    this.broken = new boolean[perWorker.length];
  }

  LuaScript script() {
    return script;
  }

  /** The worker's copy, or null when its top level failed there (counted by the caller through {@code onError}). */
  WorkerScript forWorker(Worker worker, java.util.function.Consumer<String> onError) {
    int i = worker.index();
    if (i >= perWorker.length) {
      return load(onError); // not one of the edge's workers (a test's): a copy per call
    }
    WorkerScript s = perWorker[i];
    if (s == null && !broken[i]) {
      s = load(onError);
      perWorker[i] = s;
      broken[i] = s == null;
    }
    return s;
  }

  private WorkerScript load(java.util.function.Consumer<String> onError) {
    try {
      return new WorkerScript(script, script.load());
    } catch (LuaScriptException e) {
      onError.accept(e.getMessage());
      return null;
    }
  }
}
