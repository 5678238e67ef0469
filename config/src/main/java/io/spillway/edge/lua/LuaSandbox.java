package io.spillway.edge.lua;

import org.luaj.vm2.Globals;
import org.luaj.vm2.LuaString;
import org.luaj.vm2.LuaTable;
import org.luaj.vm2.LuaValue;
import org.luaj.vm2.Varargs;
import org.luaj.vm2.lib.BaseLib;
import org.luaj.vm2.lib.MathLib;
import org.luaj.vm2.lib.OsLib;
import org.luaj.vm2.lib.StringLib;
import org.luaj.vm2.lib.TableLib;
import org.luaj.vm2.lib.VarArgFunction;

/**
 * The environment a script runs in: Lua's base library without what reaches files, the process
 * or the garbage collector ({@code dofile}, {@code loadfile}, {@code load}, {@code require},
 * {@code print}, {@code collectgarbage}), the {@code string}, {@code table} and {@code math}
 * libraries, and of {@code os} only {@code time} and {@code clock}. No {@code io}, {@code debug},
 * {@code package}, {@code coroutine} or {@code luajava}. {@code pairs} honours a {@code __pairs}
 * metamethod (Lua 5.2, as LuaJIT's 5.2 compatibility does) and {@code unpack} is there as in Lua 5.1.
 *
 * <p>LuaJ gives every string one metatable for the whole process; it is set here once to a
 * read-only {@code string} table, which every sandbox shares, so that no worker's script can
 * change another's strings.
 */
public final class LuaSandbox {
  private static final ReadOnlyTable STRING;

  static {
    Globals g = scratch();
    g.load(new StringLib());
    STRING = ReadOnlyTable.copyOf((LuaTable) g.get("string"));
    LuaTable meta = new LuaTable();
    meta.rawset(LuaValue.INDEX, STRING);
    LuaString.s_metatable = ReadOnlyTable.copyOf(meta);
  }

  private LuaSandbox() {}

  /** A new sandbox whose instructions {@code budget} counts. */
  public static Globals newGlobals(InstructionBudget budget) {
    Globals g = scratch();
    g.load(new BaseLib());
    for (String unsafe : new String[] {"load", "loadstring", "print", "collectgarbage"}) {
      g.rawset(unsafe, LuaValue.NIL);
    }
    // Loading modules and files is what scripts written for Envoy try most (require "lib.x"):
    // a call says why it fails instead of "attempt to call nil".
    for (String loader : new String[] {"require", "dofile", "loadfile", "module"}) {
      g.rawset(loader, new Unavailable(loader));
    }
    g.rawset("pairs", new Pairs(g.get("next")));
    g.load(new TableLib());
    g.load(new MathLib());
    g.rawset("string", STRING);
    g.rawset("unpack", g.get("table").get("unpack"));
    g.rawset("os", clockOnly());
    g.load(budget);
    g.rawset("package", LuaValue.NIL);
    return g;
  }

  /** Globals with the {@code package.loaded} table LuaJ's libraries register themselves in. */
  private static Globals scratch() {
    Globals g = new Globals();
    LuaTable pkg = new LuaTable();
    pkg.rawset("loaded", new LuaTable());
    g.rawset("package", pkg);
    return g;
  }

  private static LuaTable clockOnly() {
    Globals scratch = scratch();
    scratch.load(new OsLib());
    LuaValue os = scratch.get("os");
    LuaTable only = new LuaTable();
    only.rawset("time", os.get("time"));
    only.rawset("clock", os.get("clock"));
    return only;
  }

  /** {@code pairs(t)}: {@code __pairs(t)} when t's metatable has one, else {@code next, t, nil}. */
  private static final class Pairs extends VarArgFunction {
    private static final LuaString PAIRS = LuaString.valueOf("__pairs");
    private final LuaValue next;

    Pairs(LuaValue next) {
      this.next = next;
    }

    @Override
    public Varargs invoke(Varargs args) {
      LuaValue t = args.arg1();
      LuaValue meta = t.getmetatable();
      if (meta != null) {
        LuaValue custom = meta.rawget(PAIRS);
        if (!custom.isnil()) {
          Varargs r = custom.invoke(t);
          return varargsOf(r.arg(1), r.arg(2), r.arg(3));
        }
      }
      return varargsOf(next, t.checktable(), NIL);
    }
  }

  /** A loader the sandbox leaves out: calling it raises an error that names it and says why. */
  private static final class Unavailable extends org.luaj.vm2.lib.VarArgFunction {
    private final String name;

    Unavailable(String name) {
      this.name = name;
    }

    @Override
    public org.luaj.vm2.Varargs invoke(org.luaj.vm2.Varargs args) {
      throw new org.luaj.vm2.LuaError(name + " is not available: the Lua filter's sandbox loads no modules and no"
          + " files; put what the script needs into its source");
    }
  }
}
