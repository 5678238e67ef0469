package io.spillway.edge.lua;

/** A script that does not compile, or fails while its top level runs; the message is Lua's. */
public final class LuaScriptException extends Exception {
  public LuaScriptException(String message) {
    super(message);
  }
}
