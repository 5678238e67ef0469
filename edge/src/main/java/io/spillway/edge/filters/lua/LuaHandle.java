package io.spillway.edge.filters.lua;

import static io.spillway.edge.filters.lua.LuaFunctions.fn;
import static io.spillway.edge.filters.lua.LuaFunctions.self;

import io.netty.buffer.ByteBuf;
import io.netty.handler.codec.http.DefaultHttpHeaders;
import io.netty.handler.codec.http.HttpHeaders;
import io.spillway.edge.http.message.ResponseHeaders;
import java.util.Base64;
import java.util.Locale;
import org.luaj.vm2.LuaError;
import org.luaj.vm2.LuaString;
import org.luaj.vm2.LuaTable;
import org.luaj.vm2.LuaUserdata;
import org.luaj.vm2.LuaValue;
import org.luaj.vm2.Varargs;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The stream handle a script's {@code envoy_on_request(request_handle)} and
 * {@code envoy_on_response(response_handle)} get (Envoy's {@code StreamHandleWrapper}):
 * {@code headers()}, {@code body()}, {@code bodyChunks()}, {@code trailers()}, {@code metadata()},
 * {@code streamInfo()}, {@code connection()}, {@code respond()}, {@code clearRouteCache()},
 * {@code base64Escape()} and the {@code log*} methods. {@code httpCall()} fails with a Lua error
 * saying why: it would need the script to wait for an upstream, and scripts here run to their end
 * in one go.
 */
final class LuaHandle {
  private static final Logger log = LoggerFactory.getLogger("io.spillway.edge.filters.lua.script");
  static final String HTTP_CALL_UNSUPPORTED = "httpCall() is not supported by Spillway's Lua filter: it needs an"
      + " asynchronous upstream call, and scripts run to their end without being suspended";

  private final LuaObjects objects = new LuaObjects();
  private final LuaTable handleMeta = handle();

  /** The handle of one call, as the script's argument. */
  LuaValue of(LuaCall call) {
    return new LuaUserdata(call, handleMeta);
  }

  private LuaTable handle() {
    LuaTable m = new LuaTable();
    m.rawset("headers", fn("headers", a -> {
      LuaCall call = live(a);
      return objects.wrap(call.headers);
    }));
    m.rawset("body", fn("body", a -> objects.wrap(live(a).body(a.optboolean(2, false)))));
    m.rawset("bodyChunks", fn("bodyChunks", a -> chunks(objects.wrap(live(a).body(false)))));
    m.rawset("trailers", fn("trailers", a -> objects.wrap(live(a).trailers())));
    m.rawset("metadata", fn("metadata", a -> objects.metadataOf(live(a))));
    m.rawset("streamInfo", fn("streamInfo", a -> objects.streamInfoOf(live(a))));
    m.rawset("connection", fn("connection", a -> objects.connectionOf(live(a))));
    m.rawset("respond", fn("respond", a -> {
      LuaCall call = live(a);
      ResponseHeaders headers = replyHeaders(a.checktable(2));
      ByteBuf body = null;
      if (!a.isnoneornil(3)) {
        LuaString text = a.checkstring(3);
        body = call.stream().worker().allocator().buffer(text.m_length);
        body.writeBytes(text.m_bytes, text.m_offset, text.m_length);
      }
      call.respond(headers, body);
      return LuaValue.NONE;
    }));
    m.rawset("httpCall", fn("httpCall", a -> {
      throw new LuaError(HTTP_CALL_UNSUPPORTED);
    }));
    m.rawset("clearRouteCache", fn("clearRouteCache", a -> {
      live(a).clearRouteCache();
      return LuaValue.NONE;
    }));
    m.rawset("base64Escape", fn("base64Escape", a -> {
      live(a);
      LuaString s = a.checkstring(2);
      byte[] bytes = new byte[s.m_length];
      s.copyInto(0, bytes, 0, bytes.length);
      return LuaValue.valueOf(Base64.getEncoder().encodeToString(bytes));
    }));
    m.rawset("logTrace", logger(Level.TRACE));
    m.rawset("logDebug", logger(Level.DEBUG));
    m.rawset("logInfo", logger(Level.INFO));
    m.rawset("logWarn", logger(Level.WARN));
    m.rawset("logErr", logger(Level.ERROR));
    m.rawset("logCritical", logger(Level.ERROR));
    return LuaFunctions.metatable(m);
  }

  private static LuaCall live(Varargs a) {
    LuaCall call = self(a, LuaCall.class);
    call.checkLive();
    return call;
  }

  /** {@code bodyChunks()} over the buffered body: one chunk, the whole body, then nil. */
  private static Varargs chunks(LuaValue body) {
    LuaValue[] next = {body};
    return fn("chunk", a -> {
      LuaValue b = next[0];
      next[0] = LuaValue.NIL;
      return b;
    });
  }

  /** The reply's head from a table of name → value or array of values; {@code :status} is required. */
  private static ResponseHeaders replyHeaders(LuaTable table) {
    LuaValue status = table.get(":status");
    if (status.isnil()) {
      throw new LuaError("respond(): the :status header is required");
    }
    int code = LuaHeaderMap.status(status.tojstring());
    HttpHeaders fields = new DefaultHttpHeaders();
    LuaValue k = LuaValue.NIL;
    while (true) {
      Varargs n = table.next(k);
      k = n.arg1();
      if (k.isnil()) {
        break;
      }
      String name = k.checkjstring().toLowerCase(Locale.ROOT);
      if (name.equals(":status")) {
        continue;
      }
      if (name.startsWith(":") || name.isEmpty()) {
        throw new LuaError("respond(): invalid header name \"" + name + "\"");
      }
      LuaValue v = n.arg(2);
      if (v.istable()) {
        for (int i = 1; i <= v.length(); i++) {
          addChecked(fields, name, v.get(i).checkjstring());
        }
      } else {
        addChecked(fields, name, v.checkjstring());
      }
    }
    return new ResponseHeaders(code, fields);
  }

  private static void addChecked(HttpHeaders fields, String name, String value) {
    LuaHeaderMap.checkValue(value);
    fields.add(name, value);
  }

  private enum Level { TRACE, DEBUG, INFO, WARN, ERROR }

  private static LuaValue logger(Level level) {
    return fn("log", a -> {
      live(a);
      boolean on = switch (level) {
        case TRACE -> log.isTraceEnabled();
        case DEBUG -> log.isDebugEnabled();
        case INFO -> log.isInfoEnabled();
        case WARN -> log.isWarnEnabled();
        case ERROR -> log.isErrorEnabled();
      };
      if (on) {
        String message = a.arg(2).tojstring();
        switch (level) {
          case TRACE -> log.trace("script log: {}", message);
          case DEBUG -> log.debug("script log: {}", message);
          case INFO -> log.info("script log: {}", message);
          case WARN -> log.warn("script log: {}", message);
          case ERROR -> log.error("script log: {}", message);
        }
      }
      return LuaValue.NONE;
    });
  }
}
