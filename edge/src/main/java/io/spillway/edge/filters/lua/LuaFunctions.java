package io.spillway.edge.filters.lua;

import java.util.List;
import org.luaj.vm2.LuaError;
import org.luaj.vm2.LuaFunction;
import org.luaj.vm2.LuaTable;
import org.luaj.vm2.LuaValue;
import org.luaj.vm2.Varargs;
import org.luaj.vm2.lib.VarArgFunction;

/** Small helpers to expose Java methods to scripts: functions from lambdas, method tables, iterators. */
final class LuaFunctions {
  private LuaFunctions() {}

  /** A Java function's body: gets the call's arguments ({@code self} first for methods). */
  @FunctionalInterface
  interface Body {
    Varargs apply(Varargs args);
  }

  static LuaFunction fn(String name, Body body) {
    return new VarArgFunction() {
      @Override
      public Varargs invoke(Varargs args) {
        return body.apply(args);
      }

      @Override
      public String tojstring() {
        return "function: " + name;
      }
    };
  }

  /**
   * A metatable for userdata: {@code methods} as its {@code __index}, and {@code __metatable} set
   * so that a script's {@code getmetatable} gets a string, not this table to change.
   */
  static LuaTable metatable(LuaTable methods) {
    LuaTable meta = new LuaTable();
    meta.rawset(LuaValue.INDEX, methods);
    meta.rawset("__metatable", LuaValue.valueOf("locked"));
    return meta;
  }

  /** The Java object behind argument {@code i}, which must be a userdata of that type. */
  static <T> T self(Varargs args, Class<T> type) {
    Object o = args.arg1().isuserdata() ? args.arg1().touserdata() : null;
    if (!type.isInstance(o)) {
      throw new LuaError("bad self: use the method syntax, object:method()");
    }
    return type.cast(o);
  }

  /** A string or nil. */
  static LuaValue stringOrNil(String s) {
    return s == null ? LuaValue.NIL : LuaValue.valueOf(s);
  }

  /** An array table of strings. */
  static LuaTable strings(List<String> values) {
    LuaTable t = new LuaTable(values.size(), 0);
    for (int i = 0; i < values.size(); i++) {
      t.rawset(i + 1, LuaValue.valueOf(values.get(i)));
    }
    return t;
  }

  /** The generic-for triple over (key, value) pairs: an iterator function, nil, nil. */
  static Varargs pairsOver(List<String[]> entries) {
    LuaFunction next = new VarArgFunction() {
      private int i;

      @Override
      public Varargs invoke(Varargs args) {
        if (i >= entries.size()) {
          return NIL;
        }
        String[] e = entries.get(i++);
        return varargsOf(valueOf(e[0]), valueOf(e[1]));
      }
    };
    return LuaValue.varargsOf(next, LuaValue.NIL, LuaValue.NIL);
  }
}
