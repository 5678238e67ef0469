package io.spillway.edge.lua;

import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.util.ArrayDeque;
import java.util.Set;
import org.luaj.vm2.Globals;
import org.luaj.vm2.LuaClosure;
import org.luaj.vm2.LuaError;
import org.luaj.vm2.LuaValue;
import org.luaj.vm2.Prototype;
import org.luaj.vm2.compiler.LuaC;

/**
 * A script compiled once, when the configuration is translated, and what the filter must know of
 * it before any request: whether it defines {@code envoy_on_request} and {@code envoy_on_response},
 * and whether each may read the body. The compiled form is shared by every worker; each worker
 * runs its own {@link #load() copy}.
 *
 * <p>Envoy suspends a script in {@code body()} until the body is there; Spillway runs a script
 * to its end in one call (LuaJ's coroutines are threads), so a function that can reach
 * {@code body()}, {@code bodyChunks()} or {@code trailers()} is only called once the whole
 * message is buffered. Which can is decided from the compiled code, conservatively: a function
 * whose code (nested functions included) names one of them, or calls the other function that
 * does, or any function when code outside both names one.
 */
public final class LuaScript {
  /** Instructions one call into a script may run by default. */
  public static final long DEFAULT_INSTRUCTION_BUDGET = 1_000_000;

  private static final Set<String> BODY_NAMES = Set.of("body", "bodyChunks", "trailers");
  private static final String ON_REQUEST = "envoy_on_request";
  private static final String ON_RESPONSE = "envoy_on_response";

  private final String name;
  private final Prototype chunk;
  private final long instructionBudget;
  private final boolean onRequest;
  private final boolean onResponse;
  private final boolean requestReadsBody;
  private final boolean responseReadsBody;

  private LuaScript(String name, Prototype chunk, long instructionBudget, LoadedScript probe) {
    this.name = name;
    this.chunk = chunk;
    this.instructionBudget = instructionBudget;
    Prototype req = prototype(probe.onRequest());
    Prototype resp = prototype(probe.onResponse());
    this.onRequest = !probe.onRequest().isnil();
    this.onResponse = !probe.onResponse().isnil();
    boolean elsewhere = namesOutside(chunk, req, resp, BODY_NAMES);
    boolean reqBody = elsewhere || names(req, BODY_NAMES);
    boolean respBody = elsewhere || names(resp, BODY_NAMES);
    boolean reqCallsResp = names(req, Set.of(ON_RESPONSE));
    boolean respCallsReq = names(resp, Set.of(ON_REQUEST));
    this.requestReadsBody = onRequest && (reqBody || (reqCallsResp && respBody));
    this.responseReadsBody = onResponse && (respBody || (respCallsReq && reqBody));
  }

  /** Compiles {@code source} with the default instruction budget. */
  public static LuaScript compile(byte[] source, String name) throws LuaScriptException {
    return compile(source, name, DEFAULT_INSTRUCTION_BUDGET);
  }

  /**
   * Compiles {@code source} and runs its top level once (as each worker will), to find its
   * functions and to fail now on an error there.
   *
   * @param name how errors name the script ({@code name:line: message})
   * @param instructionBudget instructions one call may run (the top level included)
   */
  public static LuaScript compile(byte[] source, String name, long instructionBudget) throws LuaScriptException {
    Prototype chunk;
    try {
      chunk = LuaC.instance.compile(new ByteArrayInputStream(source), "=" + name);
    } catch (LuaError e) {
      throw new LuaScriptException("the script does not compile: " + message(e));
    } catch (IOException e) {
      throw new LuaScriptException("the script cannot be read: " + e.getMessage());
    }
    nameSource(chunk, LuaValue.valueOf(name));
    return new LuaScript(name, chunk, instructionBudget, run(chunk, name, instructionBudget));
  }

  /** Runtime errors then say {@code name:line}, as compile errors do. */
  private static void nameSource(Prototype p, org.luaj.vm2.LuaString source) {
    p.source = source;
    if (p.p != null) {
      for (Prototype nested : p.p) {
        nameSource(nested, source);
      }
    }
  }

  /** A Lua error's message without the empty traceback LuaJ appends. */
  public static String message(Throwable e) {
    String m = e instanceof StackOverflowError ? "stack overflow" : e.getMessage();
    return m == null ? e.getClass().getSimpleName() : m.strip();
  }

  /** Runs the top level in a new sandbox (on the calling thread, which then owns the result). */
  public LoadedScript load() throws LuaScriptException {
    return run(chunk, name, instructionBudget);
  }

  private static LoadedScript run(Prototype chunk, String name, long instructionBudget) throws LuaScriptException {
    InstructionBudget budget = new InstructionBudget(instructionBudget);
    Globals globals = LuaSandbox.newGlobals(budget);
    budget.reset();
    try {
      new LuaClosure(chunk, globals).call();
    } catch (LuaError | StackOverflowError e) {
      throw new LuaScriptException("the script fails when loaded: " + message(e));
    }
    return new LoadedScript(globals, budget, function(globals, ON_REQUEST), function(globals, ON_RESPONSE));
  }

  private static LuaValue function(Globals globals, String global) throws LuaScriptException {
    LuaValue f = globals.get(global);
    if (!f.isnil() && !f.isfunction()) {
      throw new LuaScriptException(global + " is a " + f.typename() + ", not a function");
    }
    return f;
  }

  /** How errors name the script. */
  public String name() {
    return name;
  }

  public boolean hasOnRequest() {
    return onRequest;
  }

  public boolean hasOnResponse() {
    return onResponse;
  }

  /** Whether {@code envoy_on_request} is called only once the whole request is buffered. */
  public boolean requestReadsBody() {
    return requestReadsBody;
  }

  /** Whether {@code envoy_on_response} is called only once the whole response is buffered. */
  public boolean responseReadsBody() {
    return responseReadsBody;
  }

  /** Instructions one call may run. */
  public long instructionBudget() {
    return instructionBudget;
  }

  private static Prototype prototype(LuaValue f) {
    return f instanceof LuaClosure c ? c.p : null;
  }

  /** Whether a string constant of {@code root} or a function nested in it is one of {@code names}. */
  private static boolean names(Prototype root, Set<String> names) {
    if (root == null) {
      return false;
    }
    ArrayDeque<Prototype> todo = new ArrayDeque<>();
    todo.push(root);
    while (!todo.isEmpty()) {
      Prototype p = todo.pop();
      if (constantIn(p, names)) {
        return true;
      }
      if (p.p != null) {
        for (Prototype nested : p.p) {
          todo.push(nested);
        }
      }
    }
    return false;
  }

  /** Like {@link #names}, over the chunk without the two functions' code. */
  private static boolean namesOutside(Prototype chunk, Prototype req, Prototype resp, Set<String> names) {
    ArrayDeque<Prototype> todo = new ArrayDeque<>();
    todo.push(chunk);
    while (!todo.isEmpty()) {
      Prototype p = todo.pop();
      if (p == req || p == resp) {
        continue;
      }
      if (constantIn(p, names)) {
        return true;
      }
      if (p.p != null) {
        for (Prototype nested : p.p) {
          todo.push(nested);
        }
      }
    }
    return false;
  }

  private static boolean constantIn(Prototype p, Set<String> names) {
    if (p.k == null) {
      return false;
    }
    for (LuaValue k : p.k) {
      if (k.isstring() && !k.isnumber() && names.contains(k.tojstring())) {
        return true;
      }
    }
    return false;
  }
}
