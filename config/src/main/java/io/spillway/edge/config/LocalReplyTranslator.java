package io.spillway.edge.config;

import io.envoyproxy.envoy.config.core.v3.SubstitutionFormatString;
import io.envoyproxy.envoy.extensions.filters.network.http_connection_manager.v3.ResponseMapper;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.OptionalInt;

/**
 * {@code local_reply_config} → {@link LocalReplyConfig}, with Envoy's validation: every mapper
 * needs a {@code filter} (an access log filter, translated by {@link AccessLogTranslator#filter});
 * {@code status_code} is 200–599; at most 1000 {@code headers_to_add}, whose values may hold
 * command operators as route-level header values do; {@code body} is a DataSource read now
 * (filename, inline_string or inline_bytes; empty allowed); body formats take what access log
 * formats take. Anything else set is refused with its path.
 */
final class LocalReplyTranslator {

  /** Envoy's bound on a mapper's {@code headers_to_add}. */
  static final int MAX_HEADERS_TO_ADD = 1000;

  private static final SupportedFields CONFIG = SupportedFields.of(
      io.envoyproxy.envoy.extensions.filters.network.http_connection_manager.v3.LocalReplyConfig.getDescriptor(),
      "mappers", "body_format");
  private static final SupportedFields MAPPER = SupportedFields.of(ResponseMapper.getDescriptor(),
      "filter", "status_code", "body", "body_format_override", "headers_to_add");

  private LocalReplyTranslator() {}

  static LocalReplyConfig translate(
      io.envoyproxy.envoy.extensions.filters.network.http_connection_manager.v3.LocalReplyConfig c, FieldPath path)
      throws ConfigException {
    CONFIG.check(c, path);
    List<LocalReplyConfig.Mapper> mappers = new ArrayList<>();
    FieldPath mappersPath = path.field("mappers");
    for (int i = 0; i < c.getMappersCount(); i++) {
      mappers.add(mapper(c.getMappers(i), mappersPath.index(i)));
    }
    Optional<LocalReplyConfig.BodyFormat> bodyFormat = c.hasBodyFormat()
        ? Optional.of(bodyFormat(c.getBodyFormat(), path.field("body_format"))) : Optional.empty();
    return new LocalReplyConfig(mappers, bodyFormat);
  }

  private static LocalReplyConfig.Mapper mapper(ResponseMapper m, FieldPath path) throws ConfigException {
    MAPPER.check(m, path);
    if (!m.hasFilter()) {
      throw new ConfigException(path.field("filter"), "filter is required");
    }
    AccessLogConfig.Filter filter = AccessLogTranslator.filter(m.getFilter(), path.field("filter"));
    OptionalInt status = OptionalInt.empty();
    if (m.hasStatusCode()) {
      long code = Integer.toUnsignedLong(m.getStatusCode().getValue());
      if (code < 200 || code >= 600) {
        throw new ConfigException(path.field("status_code"), "must be in [200, 600), not " + code);
      }
      status = OptionalInt.of((int) code);
    }
    Optional<String> body = m.hasBody()
        ? Optional.of(AccessLogTranslator.text(m.getBody(), path.field("body"))) : Optional.empty();
    FieldPath headersPath = path.field("headers_to_add");
    if (m.getHeadersToAddCount() > MAX_HEADERS_TO_ADD) {
      throw new ConfigException(headersPath, "at most " + MAX_HEADERS_TO_ADD + " headers, not "
          + m.getHeadersToAddCount());
    }
    HeaderMutations headers = HeaderMutationTranslator.additions(m.getHeadersToAddList(),
        HeaderMutationTranslator.Direction.RESPONSE, headersPath, true);
    Optional<LocalReplyConfig.BodyFormat> override = m.hasBodyFormatOverride()
        ? Optional.of(bodyFormat(m.getBodyFormatOverride(), path.field("body_format_override"))) : Optional.empty();
    return new LocalReplyConfig.Mapper(filter, status, body, headers, override);
  }

  /** A body format; its content type is {@code content_type}, else Envoy's choice by the format's kind. */
  private static LocalReplyConfig.BodyFormat bodyFormat(SubstitutionFormatString f, FieldPath path)
      throws ConfigException {
    AccessLogConfig.LogFormat format = AccessLogTranslator.format(f, path);
    String contentType = f.getContentType();
    for (int i = 0; i < contentType.length(); i++) {
      char ch = contentType.charAt(i);
      if (ch == '\r' || ch == '\n' || ch == 0) {
        throw new ConfigException(path.field("content_type"), "a header value may not contain CR, LF or NUL");
      }
    }
    if (contentType.isEmpty()) {
      contentType = format instanceof AccessLogConfig.JsonFormat ? "application/json" : "text/plain";
    }
    return new LocalReplyConfig.BodyFormat(format, contentType);
  }
}
