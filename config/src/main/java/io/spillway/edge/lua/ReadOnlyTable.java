package io.spillway.edge.lua;

import org.luaj.vm2.LuaError;
import org.luaj.vm2.LuaTable;
import org.luaj.vm2.LuaValue;

/**
 * A Lua table no script can change: the {@code string} library and the strings' metatable,
 * which LuaJ shares between every {@code Globals} of the process (so between workers).
 */
final class ReadOnlyTable extends LuaTable {
  private boolean sealed;

  /** A copy of {@code source}'s entries, read-only from now on. */
  static ReadOnlyTable copyOf(LuaTable source) {
    ReadOnlyTable t = new ReadOnlyTable();
    LuaValue k = NIL;
    while (true) {
      var next = source.next(k);
      k = next.arg1();
      if (k.isnil()) {
        break;
      }
      t.rawset(k, next.arg(2));
    }
    t.sealed = true;
    return t;
  }

  private void refuse() {
    if (sealed) {
      throw new LuaError("this table is read-only");
    }
  }

  @Override
  public void rawset(LuaValue key, LuaValue value) {
    refuse();
    super.rawset(key, value);
  }

  @Override
  public void rawset(int key, LuaValue value) {
    refuse();
    super.rawset(key, value);
  }

  @Override
  public void insert(int pos, LuaValue value) {
    refuse();
    super.insert(pos, value);
  }

  @Override
  public LuaValue remove(int pos) {
    refuse();
    return super.remove(pos);
  }

  @Override
  public void sort(LuaValue comparator) {
    refuse();
    super.sort(comparator);
  }

  @Override
  public LuaValue setmetatable(LuaValue metatable) {
    refuse();
    return super.setmetatable(metatable);
  }
}
