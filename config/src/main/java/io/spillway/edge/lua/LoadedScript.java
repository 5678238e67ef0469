package io.spillway.edge.lua;

import org.luaj.vm2.Globals;
import org.luaj.vm2.LuaValue;

/**
 * A script's top level run in a sandbox of its own: the two functions Envoy looks for (or nil),
 * the sandbox and its budget. One per worker and script; not thread-safe.
 *
 * @param globals the sandbox
 * @param budget its instruction budget, to reset before each call
 * @param onRequest {@code envoy_on_request}, or nil
 * @param onResponse {@code envoy_on_response}, or nil
 */
public record LoadedScript(Globals globals, InstructionBudget budget, LuaValue onRequest, LuaValue onResponse) {}
