package io.spillway.edge.filters.lua;

import io.spillway.edge.lua.LoadedScript;
import io.spillway.edge.lua.LuaScript;
import org.luaj.vm2.LuaError;
import org.luaj.vm2.LuaValue;

/**
 * One script as one worker runs it: its own sandbox (LuaJ's {@code Globals} are not
 * thread-safe, so each worker has its own and nothing is locked), the handle's metatables, and
 * the call into {@code envoy_on_request} or {@code envoy_on_response} under the instruction
 * budget.
 */
final class WorkerScript {
  private final LuaScript script;
  private final LoadedScript loaded;
  private final LuaHandle handle = new LuaHandle();

  /** @param loaded the script's top level run on this worker */
  WorkerScript(LuaScript script, LoadedScript loaded) {
    this.script = script;
    this.loaded = loaded;
  }

  LuaScript script() {
    return script;
  }

  /**
   * Runs the flow's function with the call's handle, to its end; the call is dead afterwards.
   *
   * @return null when the script ran to its end (or stopped after {@code respond()}), else the error
   */
  String run(boolean request, LuaCall call) {
    LuaValue fn = request ? loaded.onRequest() : loaded.onResponse();
    loaded.budget().reset();
    call.start(loaded.budget());
    try {
      fn.call(handle.of(call));
      return null;
    } catch (LuaError | StackOverflowError e) {
      return loaded.budget().stopped() ? null : LuaScript.message(e);
    } finally {
      call.end();
      loaded.budget().reset();
    }
  }
}
