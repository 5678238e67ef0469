package io.spillway.edge.http;

import io.spillway.edge.config.HttpConnectionManagerConfig.EscapedSlashesAction;
import io.spillway.edge.config.HttpConnectionManagerConfig.PathNormalization;
import io.spillway.edge.http.message.RequestHeaders;
import io.spillway.edge.runtime.RuntimeSnapshot;
import java.util.random.RandomGenerator;

/**
 * What a connection manager does to {@code :path} before routing (Envoy's
 * {@code ConnectionManagerUtility::maybeNormalizePath}), settled once per connection manager: the
 * escaped-slash action, then RFC 3986 normalization ({@code normalize_path}), then slash merging
 * ({@code merge_slashes}), each through {@link RequestPath}. The original path is not kept
 * anywhere ({@code x-envoy-original-path} is the router's, for rewrites), as in Envoy.
 */
final class PathNormalizer {

  /** What the stream does after {@link #apply}. */
  enum Outcome {
    /** Route the request (its path may have changed). */
    CONTINUE,
    /** 400, details {@code path_normalization_failed}. */
    REJECT,
    /** 307 to the changed path (gRPC requests get the 400 instead). */
    REDIRECT
  }

  static final String RUNTIME_NORMALIZE_PATH = "http_connection_manager.normalize_path";
  static final String RUNTIME_ESCAPED_SLASHES_ACTION = "http_connection_manager.path_with_escaped_slashes_action";
  static final String RUNTIME_ESCAPED_SLASHES_ENABLED =
      "http_connection_manager.path_with_escaped_slashes_action_enabled";

  private static final EscapedSlashesAction[] BY_NUMBER = EscapedSlashesAction.values();

  private final boolean normalize;
  private final boolean mergeSlashes;
  /** Never IMPLEMENTATION_SPECIFIC_DEFAULT. */
  private final EscapedSlashesAction escapedSlashes;
  private final boolean noop;

  PathNormalizer(boolean normalize, boolean mergeSlashes, EscapedSlashesAction escapedSlashes) {
    if (escapedSlashes == EscapedSlashesAction.IMPLEMENTATION_SPECIFIC_DEFAULT) {
      throw new IllegalArgumentException("resolve IMPLEMENTATION_SPECIFIC_DEFAULT first");
    }
    this.normalize = normalize;
    this.mergeSlashes = mergeSlashes;
    this.escapedSlashes = escapedSlashes;
    this.noop = !normalize && !mergeSlashes && escapedSlashes == EscapedSlashesAction.KEEP_UNCHANGED;
  }

  /**
   * The settings with the runtime applied, as Envoy does when it loads the connection manager:
   * an unset {@code normalize_path} is the feature {@code http_connection_manager.normalize_path}
   * (default 0 %); {@code http_connection_manager.path_with_escaped_slashes_action_enabled}
   * (default 100 %) gates the escaped-slash action, and for IMPLEMENTATION_SPECIFIC_DEFAULT
   * {@code http_connection_manager.path_with_escaped_slashes_action} picks it (2, 3 or 4; anything
   * else is KEEP_UNCHANGED).
   */
  static PathNormalizer resolve(PathNormalization config, RuntimeSnapshot runtime, RandomGenerator random) {
    boolean normalize = config.normalizePath().orElseGet(() -> runtime.featureEnabled(RUNTIME_NORMALIZE_PATH, 0, random));
    EscapedSlashesAction escaped = EscapedSlashesAction.KEEP_UNCHANGED;
    if (runtime.featureEnabled(RUNTIME_ESCAPED_SLASHES_ENABLED, io.spillway.edge.config.RuntimeFraction.MILLION,
        random)) {
      escaped = config.escapedSlashes();
      if (escaped == EscapedSlashesAction.IMPLEMENTATION_SPECIFIC_DEFAULT) {
        long n = runtime.getInteger(RUNTIME_ESCAPED_SLASHES_ACTION, EscapedSlashesAction.KEEP_UNCHANGED.ordinal());
        escaped = n >= EscapedSlashesAction.REJECT_REQUEST.ordinal() && n < BY_NUMBER.length
            ? BY_NUMBER[(int) n] : EscapedSlashesAction.KEEP_UNCHANGED;
      }
    }
    return new PathNormalizer(normalize, config.mergeSlashes(), escaped);
  }

  boolean normalizes() {
    return normalize;
  }

  boolean mergesSlashes() {
    return mergeSlashes;
  }

  EscapedSlashesAction escapedSlashes() {
    return escapedSlashes;
  }

  /**
   * Rewrites the request's path in place when a step changes it. A path that does not start with
   * {@code /} ({@code *}) is left alone, as Envoy refuses those before normalizing.
   */
  Outcome apply(RequestHeaders headers) {
    if (noop) {
      return Outcome.CONTINUE;
    }
    String original = headers.pathAndQuery();
    if (original.isEmpty() || original.charAt(0) != '/') {
      return Outcome.CONTINUE;
    }
    String path = original;
    Outcome outcome = Outcome.CONTINUE;
    if (escapedSlashes != EscapedSlashesAction.KEEP_UNCHANGED) {
      String unescaped = RequestPath.unescapeSlashes(path);
      if (unescaped != path) {
        if (escapedSlashes == EscapedSlashesAction.REJECT_REQUEST) {
          return Outcome.REJECT;
        }
        if (escapedSlashes == EscapedSlashesAction.UNESCAPE_AND_REDIRECT) {
          outcome = Outcome.REDIRECT;
        }
        path = unescaped;
      }
    }
    if (normalize) {
      path = RequestPath.canonicalize(path);
      if (path == null) {
        return Outcome.REJECT;
      }
    }
    if (mergeSlashes) {
      path = RequestPath.mergeSlashes(path);
    }
    if (path != original) {
      headers.setPathAndQuery(path);
    }
    return outcome;
  }
}
