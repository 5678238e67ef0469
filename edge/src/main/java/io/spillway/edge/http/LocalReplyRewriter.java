package io.spillway.edge.http;

import io.spillway.edge.accesslog.LogFilter;
import io.spillway.edge.accesslog.LogFormatter;
import io.spillway.edge.accesslog.LogInput;
import io.spillway.edge.config.AccessLogConfig;
import io.spillway.edge.config.HeaderMutations;
import io.spillway.edge.config.LocalReplyConfig;
import io.spillway.edge.http.filter.StreamInfo;
import io.spillway.edge.http.message.RequestHeaders;
import io.spillway.edge.http.message.ResponseHeaders;
import io.spillway.edge.runtime.RuntimeSnapshot;
import java.util.List;
import java.util.function.Supplier;
import java.util.random.RandomGenerator;

/**
 * A connection manager's {@code local_reply_config}, compiled once when the connection manager is
 * built (Envoy's {@code LocalReply}): each mapper's access log filter, body, header additions and
 * body format, and the default body format. Immutable and shared by every worker; a rewrite
 * evaluates filters and formats the body, nothing else.
 */
final class LocalReplyRewriter {

  /** Without {@code local_reply_config}: nothing is rewritten. */
  static final LocalReplyRewriter NONE = new LocalReplyRewriter(new CompiledMapper[0], null);

  static final String TEXT_PLAIN = "text/plain";

  private final CompiledMapper[] mappers;
  private final CompiledFormat bodyFormat; // null: the text as it is, text/plain

  private LocalReplyRewriter(CompiledMapper[] mappers, CompiledFormat bodyFormat) {
    this.mappers = mappers;
    this.bodyFormat = bodyFormat;
  }

  /** @param runtime the runtime whose keys the filters' {@code runtime_key}s read */
  static LocalReplyRewriter compile(LocalReplyConfig config, Supplier<RuntimeSnapshot> runtime) {
    if (config.isEmpty()) {
      return NONE;
    }
    CompiledMapper[] mappers = new CompiledMapper[config.mappers().size()];
    for (int i = 0; i < mappers.length; i++) {
      LocalReplyConfig.Mapper m = config.mappers().get(i);
      precompile(m.headersToAdd());
      mappers[i] = new CompiledMapper(LogFilter.compile(m.filter(), runtime), m.statusCode().orElse(0),
          m.body().orElse(null), m.headersToAdd(), m.bodyFormatOverride().map(CompiledFormat::compile).orElse(null));
    }
    return new LocalReplyRewriter(mappers, config.bodyFormat().map(CompiledFormat::compile).orElse(null));
  }

  /** Whether this rewrites nothing (no {@code local_reply_config}). */
  boolean isNone() {
    return mappers.length == 0 && bodyFormat == null;
  }

  /**
   * The reply's body and content type after the rewrite.
   *
   * @param contentType the body format's {@code content-type}
   */
  record Rewritten(String body, String contentType) {}

  /**
   * Envoy's {@code LocalReply::rewrite}: the reply's status goes to the stream info (status filters
   * and {@code %RESPONSE_CODE%} read it); the first mapper whose filter passes sets its body, adds
   * its headers (their values see the status before the mapper's), then its status; the body is
   * formatted by that mapper's {@code body_format_override}, else {@code body_format}, else left
   * as it is.
   *
   * @param head the reply's head, changed in place
   * @param text the reply's text ({@code %LOCAL_REPLY_BODY%})
   * @param request the request head, or null
   * @param nowNanos System.nanoTime now (the stream's duration so far)
   */
  Rewritten rewrite(ResponseHeaders head, String text, RequestHeaders request, StreamInfo info,
      RandomGenerator random, long nowNanos) {
    info.setResponseCode(head.status());
    String body = text;
    CompiledFormat format = bodyFormat;
    LogInput in = new LogInput(info, request, head, null, random, body, nowNanos);
    for (CompiledMapper m : mappers) {
      if (!m.filter.evaluate(in)) {
        continue;
      }
      if (m.body != null) {
        body = m.body;
        in = new LogInput(info, request, head, null, random, body, nowNanos);
      }
      if (!m.headersToAdd.isEmpty()) {
        LogInput values = in;
        m.headersToAdd.applyTo(head.headers(), f -> f.<LogFormatter>compiled(LocalReplyRewriter::headerValue)
            .format(values));
      }
      if (m.status != 0 && m.status != head.status()) {
        head.setStatus(m.status);
        info.setResponseCode(m.status);
      }
      if (m.bodyFormat != null) {
        format = m.bodyFormat;
      }
      break;
    }
    if (format == null) {
      return new Rewritten(body, TEXT_PLAIN);
    }
    return new Rewritten(format.formatter.format(new LogInput(info, request, head, null, random, body, nowNanos)),
        format.contentType);
  }

  /** Compiles every formatted header value now, so no reply compiles one. */
  private static void precompile(HeaderMutations headers) {
    for (HeaderMutations.HeaderValue h : headers.add()) {
      if (h.format() != null) {
        h.format().<LogFormatter>compiled(LocalReplyRewriter::headerValue);
      }
    }
  }

  /** A header value's format, compiled as the router compiles route header values. */
  private static LogFormatter headerValue(List<AccessLogConfig.FormatToken> tokens) {
    return LogFormatter.compile(new AccessLogConfig.TextFormat(tokens, true));
  }

  /** One compiled {@code ResponseMapper}; {@code status} 0 and null body or format leave those alone. */
  private record CompiledMapper(LogFilter filter, int status, String body, HeaderMutations headersToAdd,
      CompiledFormat bodyFormat) {}

  /** A compiled body format and the content type it gives the reply. */
  private record CompiledFormat(LogFormatter formatter, String contentType) {
    static CompiledFormat compile(LocalReplyConfig.BodyFormat f) {
      return new CompiledFormat(LogFormatter.compile(f.format()), f.contentType());
    }
  }
}
