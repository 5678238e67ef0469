package io.spillway.edge.lua;

import org.luaj.vm2.LuaClosure;
import org.luaj.vm2.LuaError;
import org.luaj.vm2.LuaFunction;
import org.luaj.vm2.LuaValue;
import org.luaj.vm2.Varargs;
import org.luaj.vm2.lib.DebugLib;

/**
 * The hook LuaJ calls on every Lua instruction, call and return of one {@code Globals} (it sits
 * where the debug library would; scripts never see a {@code debug} table): it counts the
 * instructions of one call from the proxy into the script and the depth of nested calls, and
 * fails the script with a Lua error past either bound, so that a loop or a deep recursion cannot
 * hold a worker. Once failed (or {@link #stop() stopped}) every further instruction fails too, so
 * a {@code pcall} in the script cannot swallow it. Used by one worker thread only.
 */
public final class InstructionBudget extends DebugLib {
  /** Nested Lua calls allowed at once; well below what a worker's Java stack holds. */
  public static final int MAX_CALL_DEPTH = 200;

  private final long limit;
  private long used;
  private int depth;
  private String failure;

  /** @param limit instructions one call into the script may run */
  public InstructionBudget(long limit) {
    if (limit < 1) {
      throw new IllegalArgumentException("limit must be at least 1, not " + limit);
    }
    this.limit = limit;
  }

  /** Starts a new call into the script: the whole budget is available again. */
  public void reset() {
    used = 0;
    depth = 0;
    failure = null;
  }

  /** Ends the running call at its next instruction (after {@code respond()}); not an error. */
  public void stop() {
    failure = STOPPED;
  }

  /** Whether the running call was ended by {@link #stop()}. */
  public boolean stopped() {
    return failure == STOPPED;
  }

  /** Instructions the running (or last) call has used. */
  public long used() {
    return used;
  }

  private static final String STOPPED = "script stopped after respond()";

  @Override
  public LuaValue call(LuaValue modname, LuaValue env) {
    env.checkglobals().debuglib = this;
    return NIL;
  }

  @Override
  public void onInstruction(int pc, Varargs v, int top) {
    if (failure != null) {
      throw new LuaError(failure);
    }
    if (++used > limit) {
      failure = "instruction budget exceeded: more than " + limit + " Lua instructions in one call";
      throw new LuaError(failure);
    }
  }

  @Override
  public void onCall(LuaClosure c, Varargs varargs, LuaValue[] stack) {
    enter();
  }

  @Override
  public void onCall(LuaFunction f) {
    enter();
  }

  private void enter() {
    if (++depth > MAX_CALL_DEPTH) {
      failure = "stack overflow: more than " + MAX_CALL_DEPTH + " nested calls";
      throw new LuaError(failure);
    }
  }

  @Override
  public void onReturn() {
    if (depth > 0) {
      depth--;
    }
  }

  @Override
  public String traceback(int level) {
    return ""; // errors report "chunk:line message" only: no call stack is kept per call
  }
}
