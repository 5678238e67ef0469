package io.spillway.edge.config;

import java.util.List;
import java.util.Optional;
import java.util.OptionalInt;

/**
 * The connection manager's {@code local_reply_config} (Envoy's local reply modification),
 * translated and checked: how the replies the edge makes itself are rewritten before the encoder
 * filters see them. The connection manager compiles it once ({@code http.LocalReplyRewriter}).
 *
 * @param mappers {@code mappers}, in order: the first whose filter passes rewrites the reply
 * @param bodyFormat {@code body_format}: the body of every reply whose mapper sets no
 *     {@code body_format_override}; empty for Envoy's default ({@code %LOCAL_REPLY_BODY%} as
 *     {@code text/plain})
 */
public record LocalReplyConfig(List<Mapper> mappers, Optional<BodyFormat> bodyFormat) {

  /** No {@code local_reply_config}: replies go out as the edge makes them. */
  public static final LocalReplyConfig NONE = new LocalReplyConfig(List.of(), Optional.empty());

  public LocalReplyConfig {
    mappers = List.copyOf(mappers);
    java.util.Objects.requireNonNull(bodyFormat, "bodyFormat");
  }

  /** Whether it changes nothing (no mapper, no body format). */
  public boolean isEmpty() {
    return mappers.isEmpty() && bodyFormat.isEmpty();
  }

  /**
   * One {@code ResponseMapper}.
   *
   * @param filter {@code filter}: which replies it takes, as an access log filter decides
   * @param statusCode {@code status_code}: the status the reply gets (200–599), or empty to keep it
   * @param body {@code body}: the reply's text (read when the configuration loads), or empty to keep it
   * @param headersToAdd {@code headers_to_add}, whose values may use command operators
   * @param bodyFormatOverride {@code body_format_override}, or empty for the config's {@code body_format}
   */
  public record Mapper(AccessLogConfig.Filter filter, OptionalInt statusCode, Optional<String> body,
      HeaderMutations headersToAdd, Optional<BodyFormat> bodyFormatOverride) {
    public Mapper {
      java.util.Objects.requireNonNull(filter, "filter");
      java.util.Objects.requireNonNull(statusCode, "statusCode");
      java.util.Objects.requireNonNull(body, "body");
      java.util.Objects.requireNonNull(headersToAdd, "headersToAdd");
      java.util.Objects.requireNonNull(bodyFormatOverride, "bodyFormatOverride");
    }
  }

  /**
   * A {@code SubstitutionFormatString} for a reply body.
   *
   * @param format the text or JSON format, parsed
   * @param contentType the reply's {@code content-type}: {@code content_type}, else
   *     {@code application/json} for a JSON format and {@code text/plain} for text
   */
  public record BodyFormat(AccessLogConfig.LogFormat format, String contentType) {
    public BodyFormat {
      java.util.Objects.requireNonNull(format, "format");
      java.util.Objects.requireNonNull(contentType, "contentType");
    }
  }
}
