package io.spillway.edge.filters.headertometadata;

import io.spillway.edge.http.filter.DecoderFilterCallbacks;
import io.spillway.edge.http.filter.EncoderFilterCallbacks;
import io.spillway.edge.http.filter.FilterHeadersStatus;
import io.spillway.edge.http.filter.StreamFilter;
import io.spillway.edge.http.message.RequestHeaders;
import io.spillway.edge.http.message.ResponseHeaders;

/**
 * One stream's header-to-metadata (Envoy's {@code HeaderToMetadataFilter}): on the request's
 * headers the request rules, on the response's headers the response rules, each writing the
 * stream's dynamic metadata and removing the headers their rules say to remove. It never stops
 * iteration and never answers.
 */
final class HeaderToMetadataFilter implements StreamFilter {
  private final HeaderToMetadataFactory factory;
  private DecoderFilterCallbacks decoder;
  private EncoderFilterCallbacks encoder;
  private MetadataRules rules;

  HeaderToMetadataFilter(HeaderToMetadataFactory factory) {
    this.factory = factory;
  }

  @Override
  public void setDecoderFilterCallbacks(DecoderFilterCallbacks callbacks) {
    this.decoder = callbacks;
  }

  @Override
  public void setEncoderFilterCallbacks(EncoderFilterCallbacks callbacks) {
    this.encoder = callbacks;
  }

  @Override
  public FilterHeadersStatus decodeHeaders(RequestHeaders headers, boolean endStream) {
    rules = factory.rulesFor(decoder.route());
    if (rules.hasRequestRules()) {
      rules.applyToRequest(headers, decoder.streamInfo());
    }
    return FilterHeadersStatus.CONTINUE;
  }

  @Override
  public FilterHeadersStatus encodeHeaders(ResponseHeaders headers, boolean endStream) {
    MetadataRules r = rules != null ? rules : factory.rulesFor(encoder.route());
    if (r.hasResponseRules()) {
      r.applyToResponse(headers, encoder.streamInfo());
    }
    return FilterHeadersStatus.CONTINUE;
  }
}
