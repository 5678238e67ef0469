package io.spillway.testkit;

import io.netty.handler.codec.http.QueryStringDecoder;
import java.util.List;
import java.util.Map;

/**
 * What an {@link OriginServer} does with a request, read from its path. The first path segment
 * that names a behaviour wins, so a route prefix in front of it still works
 * ({@code /cluster-a/status/503} answers 503); behaviours that take a number only match when the
 * next segment is one.
 *
 * @param kind     the behaviour
 * @param argument the number after the behaviour's segment (status, milliseconds, bytes), or 0
 * @param query    the decoded query parameters
 */
record OriginRoute(Kind kind, long argument, Map<String, List<String>> query) {

    /** The behaviours an origin knows. */
    enum Kind {
        DEFAULT(false), STATUS(true), DELAY(true), ECHO(false), BYTES(true), DRAIN(false),
        RESET(false), HANG(false), HEADERS(false), CHUNKED(false);

        private final boolean takesNumber;

        Kind(boolean takesNumber) {
            this.takesNumber = takesNumber;
        }
    }

    static OriginRoute parse(String target) {
        QueryStringDecoder decoder = new QueryStringDecoder(target);
        String[] segments = decoder.path().split("/");
        for (int i = 0; i < segments.length; i++) {
            Kind kind = kindOf(segments[i]);
            if (kind == null) {
                continue;
            }
            if (!kind.takesNumber) {
                return new OriginRoute(kind, 0, decoder.parameters());
            }
            if (i + 1 < segments.length) {
                long number = parseNonNegative(segments[i + 1]);
                if (number >= 0) {
                    return new OriginRoute(kind, number, decoder.parameters());
                }
            }
        }
        return new OriginRoute(Kind.DEFAULT, 0, decoder.parameters());
    }

    /** The named query parameter as a non-negative number, or {@code fallback}. */
    long queryNumber(String name, long fallback) {
        List<String> values = query.get(name);
        if (values == null || values.isEmpty()) {
            return fallback;
        }
        long number = parseNonNegative(values.get(0));
        return number >= 0 ? number : fallback;
    }

    private static Kind kindOf(String segment) {
        return switch (segment) {
            case "status" -> Kind.STATUS;
            case "delay" -> Kind.DELAY;
            case "echo" -> Kind.ECHO;
            case "bytes" -> Kind.BYTES;
            case "drain" -> Kind.DRAIN;
            case "reset" -> Kind.RESET;
            case "hang" -> Kind.HANG;
            case "headers" -> Kind.HEADERS;
            case "chunked" -> Kind.CHUNKED;
            default -> null;
        };
    }

    private static long parseNonNegative(String text) {
        if (text.isEmpty() || text.length() > 18) {
            return -1;
        }
        for (int i = 0; i < text.length(); i++) {
            if (text.charAt(i) < '0' || text.charAt(i) > '9') {
                return -1;
            }
        }
        return Long.parseLong(text);
    }
}
