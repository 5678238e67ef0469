package io.spillway.edge.accesslog;

import io.spillway.edge.config.AccessLogConfig;
import io.spillway.edge.config.AccessLogConfig.Command;
import io.spillway.edge.config.AccessLogConfig.FormatToken;
import io.spillway.edge.config.AccessLogConfig.JsonField;
import io.spillway.edge.config.AccessLogConfig.TimePart;
import io.spillway.edge.http.filter.ResponseFlag;
import io.spillway.edge.upstream.Host;
import java.net.InetSocketAddress;
import java.time.LocalDateTime;
import java.time.ZoneOffset;
import java.time.format.TextStyle;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.TimeUnit;
import java.util.function.Function;

/**
 * A compiled access log format: the tokens of {@link AccessLogConfig.LogFormat} turned once into
 * a list of parts, each of which appends its value straight to the line. Immutable and shared by
 * every worker; {@link #format} allocates the line's builder and little else.
 */
public final class LogFormatter {

  /** One value of a line: appends it and answers true, or appends nothing and answers false (absent). */
  @FunctionalInterface
  interface Value {
    boolean append(StringBuilder out, LogInput in);
  }

  /**
   * A compiled command operator: how to get its value, and whether a typed JSON format writes it
   * as a number; {@code json}, when not null, writes the value's own JSON in a typed JSON format
   * instead (a metadata value, whose kind each request decides).
   */
  record Field(Value value, boolean numeric, int maxLength, Value json) {
    Field(Value value, boolean numeric, int maxLength) {
      this(value, numeric, maxLength, null);
    }

    boolean appendTo(StringBuilder out, LogInput in) {
      int mark = out.length();
      if (!value.append(out, in)) {
        return false;
      }
      if (maxLength >= 0 && out.length() - mark > maxLength) {
        out.setLength(mark + maxLength);
      }
      return true;
    }
  }

  private final Object[] textParts; // String literal or Field
  private final List<JsonMember> json; // null for text
  private final boolean typed;
  private final boolean omitEmpty;

  private LogFormatter(Object[] textParts, List<JsonMember> json, boolean typed, boolean omitEmpty) {
    this.textParts = textParts;
    this.json = json;
    this.typed = typed;
    this.omitEmpty = omitEmpty;
  }

  /** Compiles a translated format; {@code environment} answers ENVIRONMENT(X), {@code hostname} HOSTNAME. */
  public static LogFormatter compile(AccessLogConfig.LogFormat format, Function<String, String> environment,
      String hostname) {
    Compiler c = new Compiler(environment, () -> hostname);
    return switch (format) {
      case AccessLogConfig.TextFormat t -> new LogFormatter(c.parts(t.tokens()), null, false, t.omitEmptyValues());
      case AccessLogConfig.JsonFormat j -> new LogFormatter(null, c.members(j.fields()), j.typed(), j.omitEmptyValues());
    };
  }

  /** Compiles with the process's environment and host name (looked up only when HOSTNAME is used). */
  public static LogFormatter compile(AccessLogConfig.LogFormat format) {
    Compiler c = new Compiler(System::getenv, Compiler::localHostname);
    return switch (format) {
      case AccessLogConfig.TextFormat t -> new LogFormatter(c.parts(t.tokens()), null, false, t.omitEmptyValues());
      case AccessLogConfig.JsonFormat j -> new LogFormatter(null, c.members(j.fields()), j.typed(), j.omitEmptyValues());
    };
  }

  /** The line for {@code in}, with the newline a JSON format adds (a text format carries its own). */
  public String format(LogInput in) {
    StringBuilder out = new StringBuilder(256);
    if (json == null) {
      appendText(out, textParts, in, omitEmpty ? "" : "-");
    } else {
      appendObject(out, json, in);
      out.append('\n');
    }
    return out.toString();
  }

  private static void appendText(StringBuilder out, Object[] parts, LogInput in, String absent) {
    for (Object p : parts) {
      if (p instanceof String s) {
        out.append(s);
      } else if (!((Field) p).appendTo(out, in)) {
        out.append(absent);
      }
    }
  }

  private void appendObject(StringBuilder out, List<JsonMember> members, LogInput in) {
    out.append('{');
    boolean first = true;
    StringBuilder scratch = null;
    for (JsonMember m : members) {
      int mark = out.length();
      if (!first) {
        out.append(',');
      }
      out.append(m.quotedKey).append(':');
      boolean written;
      if (m.literal != null) {
        out.append(m.literal);
        written = true;
      } else if (m.nested != null) {
        appendObject(out, m.nested, in);
        written = true;
      } else if (m.single != null && typed && m.single.json() != null) {
        written = m.single.json().append(out, in);
        if (!written && !omitEmpty) {
          out.append("null");
          written = true;
        }
      } else if (m.single != null) {
        if (scratch == null) {
          scratch = new StringBuilder(64);
        }
        scratch.setLength(0);
        written = m.single.appendTo(scratch, in);
        if (written) {
          if (typed && m.single.numeric()) {
            out.append(scratch);
          } else {
            appendJsonString(out, scratch);
          }
        } else if (!omitEmpty) {
          out.append(typed ? "null" : "\"-\"");
          written = true;
        }
      } else {
        if (scratch == null) {
          scratch = new StringBuilder(64);
        }
        scratch.setLength(0);
        appendText(scratch, m.parts, in, omitEmpty ? "" : "-");
        written = !(omitEmpty && scratch.isEmpty());
        if (written) {
          appendJsonString(out, scratch);
        }
      }
      if (written) {
        first = false;
      } else {
        out.setLength(mark);
      }
    }
    out.append('}');
  }

  static void appendJsonString(StringBuilder out, CharSequence s) {
    io.spillway.edge.http.filter.MetadataValue.appendJsonString(out, s);
  }

  /** A compiled JSON member: a literal, a nested object, a single operator, or text parts. */
  private record JsonMember(String quotedKey, String literal, List<JsonMember> nested, Field single, Object[] parts) {}

  /** Turns tokens into parts; one per compile. */
  private static final class Compiler {
    private final Function<String, String> environment;
    private final java.util.function.Supplier<String> hostname;

    Compiler(Function<String, String> environment, java.util.function.Supplier<String> hostname) {
      this.environment = environment;
      this.hostname = hostname;
    }

    static String localHostname() {
      try {
        return java.net.InetAddress.getLocalHost().getHostName();
      } catch (java.net.UnknownHostException e) {
        return "-";
      }
    }

    Object[] parts(List<FormatToken> tokens) {
      List<Object> parts = new ArrayList<>();
      for (FormatToken t : tokens) {
        if (t instanceof AccessLogConfig.Literal l) {
          parts.add(l.text());
        } else {
          parts.add(field((Command) t));
        }
      }
      return parts.toArray();
    }

    List<JsonMember> members(List<JsonField> fields) {
      List<JsonMember> out = new ArrayList<>();
      for (JsonField f : fields) {
        StringBuilder key = new StringBuilder();
        appendJsonString(key, f.key());
        String k = key.toString();
        out.add(switch (f.value()) {
          case AccessLogConfig.LiteralValue l -> new JsonMember(k, l.json(), null, null, null);
          case AccessLogConfig.NestedValue n -> new JsonMember(k, null, members(n.fields()), null, null);
          case AccessLogConfig.FormattedValue v -> v.tokens().size() == 1 && v.tokens().get(0) instanceof Command cmd
              ? new JsonMember(k, null, null, field(cmd), null)
              : new JsonMember(k, null, null, null, parts(v.tokens()));
        });
      }
      return List.copyOf(out);
    }

    Field field(Command c) {
      int max = c.maxLength();
      return switch (c.operator()) {
        case START_TIME -> new Field(startTime(c.timeFormat()), c.timeFormat().size() == 1
            && c.timeFormat().get(0).field() == 's', max);
        case REQ -> new Field(header(c, LogInput::requestHeader), false, max);
        case RESP -> new Field(header(c, LogInput::responseHeader), false, max);
        case TRAILER -> new Field(header(c, LogInput::trailer), false, max);
        case REQ_WITHOUT_QUERY -> {
          Value v = header(c, LogInput::requestHeader);
          yield new Field((out, in) -> {
            int mark = out.length();
            if (!v.append(out, in)) {
              return false;
            }
            int q = out.indexOf("?", mark);
            if (q >= 0) {
              out.setLength(q);
            }
            return true;
          }, false, max);
        }
        case RESPONSE_CODE -> number((out, in) -> out.append(in.info().responseCode()), max);
        case RESPONSE_CODE_DETAILS -> text(in -> in.info().responseCodeDetails(), max);
        case RESPONSE_FLAGS -> new Field((out, in) -> {
          out.append(ResponseFlag.format(in.info().responseFlags()));
          return true;
        }, false, max);
        case RESPONSE_FLAGS_LONG -> new Field((out, in) -> {
          out.append(ResponseFlagNames.formatLong(in.info().responseFlags()));
          return true;
        }, false, max);
        case BYTES_RECEIVED -> number((out, in) -> out.append(in.info().bytesReceived()), max);
        case BYTES_SENT -> number((out, in) -> out.append(in.info().bytesSent()), max);
        case DURATION -> number((out, in) -> out.append(TimeUnit.NANOSECONDS.toMillis(in.durationNanos())), max);
        case REQUEST_DURATION -> new Field(since(in -> in.info().startNanos(), in -> in.info().lastDownstreamRxNanos()),
            true, max);
        case RESPONSE_DURATION -> new Field(since(in -> in.info().startNanos(), in -> in.info().firstUpstreamRxNanos()),
            true, max);
        case RESPONSE_TX_DURATION -> new Field(since(in -> in.info().firstUpstreamRxNanos(),
            in -> in.info().firstUpstreamRxNanos() == 0 ? 0 : in.info().endNanos()), true, max);
        case UPSTREAM_HOST, UPSTREAM_REMOTE_ADDRESS -> text(in -> {
          Host h = in.info().upstreamHost();
          return h == null ? null : h.addressString();
        }, max);
        case UPSTREAM_CLUSTER -> text(LogFormatter::upstreamCluster, max);
        case DOWNSTREAM_REMOTE_ADDRESS ->
            new Field((out, in) -> address(out, in.info().downstreamRemote(), in.info().downstreamAddress(), true),
                false, max);
        case DOWNSTREAM_DIRECT_REMOTE_ADDRESS -> new Field((out, in) -> address(out, in.info().downstreamDirectRemote(),
            in.info().downstreamDirectAddress(), true), false, max);
        case DOWNSTREAM_REMOTE_ADDRESS_WITHOUT_PORT ->
            new Field((out, in) -> address(out, in.info().downstreamRemote(), in.info().downstreamAddress(), false),
                false, max);
        case DOWNSTREAM_DIRECT_REMOTE_ADDRESS_WITHOUT_PORT -> new Field((out, in) -> address(out,
            in.info().downstreamDirectRemote(), in.info().downstreamDirectAddress(), false), false, max);
        case DOWNSTREAM_REMOTE_PORT -> new Field((out, in) -> port(out, in.info().downstreamRemote()), true, max);
        case DOWNSTREAM_LOCAL_ADDRESS -> new Field((out, in) -> address(out, in.info().downstreamLocal(), null, true),
            false, max);
        case DOWNSTREAM_LOCAL_ADDRESS_WITHOUT_PORT ->
            new Field((out, in) -> address(out, in.info().downstreamLocal(), null, false), false, max);
        case DOWNSTREAM_LOCAL_PORT -> new Field((out, in) -> port(out, in.info().downstreamLocal()), true, max);
        case PROTOCOL -> text(in -> in.request() == null ? null : in.info().isHttp2() ? "HTTP/2" : "HTTP/1.1", max);
        case ROUTE_NAME -> text(in -> {
          var r = in.info().route();
          return r == null || r.route().name().isEmpty() ? null : r.route().name();
        }, max);
        case GRPC_STATUS -> text(in -> {
          if (!in.isGrpcRequest()) {
            return null;
          }
          int s = in.grpcStatus();
          return s < 0 ? null : grpcStatusName(s);
        }, max);
        case HOSTNAME -> constant(hostname.get(), max);
        case UNIQUE_ID -> new Field((out, in) -> {
          out.append(new UUID((in.random().nextLong() & ~0xF000L) | 0x4000L,
              (in.random().nextLong() & 0x3FFFFFFFFFFFFFFFL) | 0x8000000000000000L));
          return true;
        }, false, max);
        case LOCAL_REPLY_BODY -> new Field((out, in) -> {
          if (in.localReplyBody() != null) {
            out.append(in.localReplyBody());
          }
          return true; // never absent: empty outside a local reply, as in Envoy
        }, false, max);
        case FILTER_STATE -> new Field((out, in) -> false, false, max); // no filter sets filter state
        case DYNAMIC_METADATA -> MetadataField.of(c.argument(), c.metadataPath(), max);
        case ENVIRONMENT -> constant(environment.apply(c.argument()), max);
      };
    }

    private interface Appender {
      void append(StringBuilder out, LogInput in);
    }

    private static Field number(Appender v, int max) {
      return new Field((out, in) -> {
        v.append(out, in);
        return true;
      }, true, max);
    }

    private static Field text(Function<LogInput, String> f, int max) {
      return new Field((out, in) -> {
        String s = f.apply(in);
        if (s == null) {
          return false;
        }
        out.append(s);
        return true;
      }, false, max);
    }

    private static Field constant(String value, int max) {
      return new Field((out, in) -> {
        if (value == null || value.isEmpty()) {
          return false;
        }
        out.append(value);
        return true;
      }, false, max);
    }

    private interface Header {
      String get(LogInput in, String name);
    }

    private static Value header(Command c, Header get) {
      String main = c.argument();
      String alt = c.alternative();
      return (out, in) -> {
        String v = get.get(in, main);
        if (v == null && !alt.isEmpty()) {
          v = get.get(in, alt);
        }
        if (v == null) {
          return false;
        }
        out.append(v);
        return true;
      };
    }

    private interface Nanos {
      long at(LogInput in);
    }

    /** Milliseconds from {@code from} to {@code to}; absent when either is 0. */
    private static Value since(Nanos from, Nanos to) {
      return (out, in) -> {
        long a = from.at(in);
        long b = to.at(in);
        if (a == 0 || b == 0) {
          return false;
        }
        out.append(TimeUnit.NANOSECONDS.toMillis(Math.max(0, b - a)));
        return true;
      };
    }

    /**
     * START_TIME: the parts that change at most once a second are rendered once per second and
     * kept in one published immutable snapshot (read with one volatile load, replaced whole, no
     * lock); fractions are appended per line.
     */
    private static Value startTime(List<TimePart> format) {
      TimePart[] parts = format.toArray(new TimePart[0]);
      SecondCache cache = new SecondCache();
      return (out, in) -> {
        long epochNanos = in.info().startEpochNanos();
        long seconds = Math.floorDiv(epochNanos, 1_000_000_000L);
        int nanos = (int) Math.floorMod(epochNanos, 1_000_000_000L);
        SecondCache.Rendered r = cache.rendered;
        if (r == null || r.second() != seconds) {
          r = render(parts, seconds);
          cache.rendered = r;
        }
        String[] text = r.text();
        for (int i = 0; i < parts.length; i++) {
          out.append(text[i]);
          TimePart p = parts[i];
          if (p.field() == 'f' || (p.field() == 'S' && p.digits() > 0)) {
            fraction(out, nanos, p.digits());
          }
        }
        return true;
      };
    }

    /** The last second a START_TIME part rendered, shared by the workers. */
    private static final class SecondCache {
      record Rendered(long second, String[] text) {}

      volatile Rendered rendered;
    }

    private static SecondCache.Rendered render(TimePart[] parts, long seconds) {
      LocalDateTime t = LocalDateTime.ofEpochSecond(seconds, 0, ZoneOffset.UTC);
      String[] text = new String[parts.length];
      StringBuilder sb = new StringBuilder();
      for (int i = 0; i < parts.length; i++) {
        TimePart p = parts[i];
        sb.setLength(0);
        if (p.field() == 0) {
          sb.append(p.literal());
        } else if (p.field() == 's') {
          sb.append(seconds);
        } else if (p.field() == 'S' && p.digits() > 0) {
          pad(sb, t.getSecond(), 2);
          sb.append('.');
        } else if (p.field() != 'f') {
          timeField(sb, t, new TimePart(p.field(), 0, ""));
        }
        text[i] = sb.toString();
      }
      return new SecondCache.Rendered(seconds, text);
    }

    private static void fraction(StringBuilder out, int nanos, int digits) {
      int v = nanos;
      for (int i = 9; i > digits; i--) {
        v /= 10;
      }
      pad(out, v, digits);
    }

    private static void pad(StringBuilder out, long v, int width) {
      int digits = 1;
      for (long x = v; x >= 10; x /= 10) {
        digits++;
      }
      for (int i = digits; i < width; i++) {
        out.append('0');
      }
      out.append(v);
    }

    private static void timeField(StringBuilder out, LocalDateTime t, TimePart p) {
      switch (p.field()) {
        case 'Y' -> out.append(t.getYear());
        case 'y' -> pad(out, t.getYear() % 100, 2);
        case 'C' -> pad(out, t.getYear() / 100, 2);
        case 'm' -> pad(out, t.getMonthValue(), 2);
        case 'd' -> pad(out, t.getDayOfMonth(), 2);
        case 'e' -> {
          if (t.getDayOfMonth() < 10) {
            out.append(' ');
          }
          out.append(t.getDayOfMonth());
        }
        case 'H' -> pad(out, t.getHour(), 2);
        case 'I' -> pad(out, t.getHour() % 12 == 0 ? 12 : t.getHour() % 12, 2);
        case 'M' -> pad(out, t.getMinute(), 2);
        case 'S' -> {
          pad(out, t.getSecond(), 2);
          if (p.digits() > 0) {
            out.append('.');
            fraction(out, t.getNano(), p.digits());
          }
        }
        case 'j' -> pad(out, t.getDayOfYear(), 3);
        case 'b' -> out.append(t.getMonth().getDisplayName(TextStyle.SHORT, Locale.US));
        case 'B' -> out.append(t.getMonth().getDisplayName(TextStyle.FULL, Locale.US));
        case 'a' -> out.append(t.getDayOfWeek().getDisplayName(TextStyle.SHORT, Locale.US));
        case 'A' -> out.append(t.getDayOfWeek().getDisplayName(TextStyle.FULL, Locale.US));
        case 'u' -> out.append(t.getDayOfWeek().getValue());
        case 'w' -> out.append(t.getDayOfWeek().getValue() % 7);
        case 'p' -> out.append(t.getHour() < 12 ? "AM" : "PM");
        case 'z' -> out.append("+0000");
        case 'Z' -> out.append("UTC");
        default -> throw new IllegalStateException("unexpected time field " + p.field());
      }
    }
  }

  static String upstreamCluster(LogInput in) {
    Host h = in.info().upstreamHost();
    if (h != null) {
      return h.clusterName();
    }
    var route = in.info().route();
    var action = route == null ? null : route.routeAction();
    return action == null || action.clusters().size() != 1 ? null : action.clusters().get(0).name();
  }

  private static boolean address(StringBuilder out, InetSocketAddress a, String fallbackIp, boolean withPort) {
    if (a == null) {
      if (fallbackIp == null || fallbackIp.isEmpty()) {
        return false;
      }
      out.append(fallbackIp);
      return true;
    }
    String ip = a.getAddress() == null ? a.getHostString() : a.getAddress().getHostAddress();
    boolean v6 = ip.indexOf(':') >= 0;
    if (withPort && v6) {
      out.append('[').append(ip).append(']');
    } else {
      out.append(ip);
    }
    if (withPort) {
      out.append(':').append(a.getPort());
    }
    return true;
  }

  private static boolean port(StringBuilder out, InetSocketAddress a) {
    if (a == null) {
      return false;
    }
    out.append(a.getPort());
    return true;
  }

  private static final Map<Integer, String> GRPC_NAMES = Map.ofEntries(
      Map.entry(0, "OK"), Map.entry(1, "Canceled"), Map.entry(2, "Unknown"), Map.entry(3, "InvalidArgument"),
      Map.entry(4, "DeadlineExceeded"), Map.entry(5, "NotFound"), Map.entry(6, "AlreadyExists"),
      Map.entry(7, "PermissionDenied"), Map.entry(8, "ResourceExhausted"), Map.entry(9, "FailedPrecondition"),
      Map.entry(10, "Aborted"), Map.entry(11, "OutOfRange"), Map.entry(12, "Unimplemented"), Map.entry(13, "Internal"),
      Map.entry(14, "Unavailable"), Map.entry(15, "DataLoss"), Map.entry(16, "Unauthenticated"));

  /** Envoy's CAMEL_STRING form of a gRPC status; a status without a name prints as its number. */
  static String grpcStatusName(int status) {
    String name = GRPC_NAMES.get(status);
    return name == null ? Integer.toString(status) : name;
  }
}
