package io.spillway.edge.filters.router;

import io.netty.handler.codec.http.HttpHeaders;
import io.spillway.edge.accesslog.LogFormatter;
import io.spillway.edge.accesslog.LogInput;
import io.spillway.edge.config.AccessLogConfig;
import io.spillway.edge.config.HeaderMutations;
import java.util.List;
import java.util.function.Supplier;

/**
 * Applies a route's merged header mutations (removals, then additions) to a message's headers.
 * Values with command operators are formatted as access log lines are, from the stream so far
 * (an operator without a value gives an empty string, and an empty value is not added, as in Envoy).
 */
final class HeaderMutator {
  private HeaderMutator() {}

  /**
   * @param stream what formatted values read: the stream's info and the messages so far; asked
   *     for only when a value has command operators
   */
  static void apply(List<HeaderMutations> mutations, HttpHeaders headers, Supplier<LogInput> stream) {
    for (int m = 0; m < mutations.size(); m++) {
      HeaderMutations mutation = mutations.get(m);
      if (!mutation.hasFormattedValues()) {
        mutation.applyTo(headers);
        continue;
      }
      LogInput in = stream.get();
      mutation.applyTo(headers, format -> format.<LogFormatter>compiled(HeaderMutator::compile).format(in));
    }
  }

  private static LogFormatter compile(List<AccessLogConfig.FormatToken> tokens) {
    return LogFormatter.compile(new AccessLogConfig.TextFormat(tokens, true));
  }
}
