package io.spillway.edge.accesslog;

import io.spillway.edge.config.AccessLogConfig;
import io.spillway.edge.http.filter.ResponseFlag;
import io.spillway.edge.router.RouteMatcher;
import io.spillway.edge.runtime.RuntimeSnapshot;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.function.Supplier;

/**
 * A compiled access log filter (Envoy's {@code AccessLogFilter}): whether a finished stream gets a
 * line. Compiled once from the translated filter; evaluating one allocates nothing.
 */
@FunctionalInterface
public interface LogFilter {

  /** Logs everything. */
  LogFilter ALL = in -> true;

  boolean evaluate(LogInput in);

  /** Compiles a translated filter. */
  static LogFilter compile(AccessLogConfig.Filter filter) {
    return compile(filter, () -> RuntimeSnapshot.EMPTY);
  }

  /**
   * @param runtime the runtime whose keys override comparison values and sampling fractions
   */
  static LogFilter compile(AccessLogConfig.Filter filter, Supplier<RuntimeSnapshot> runtime) {
    return switch (filter) {
      case AccessLogConfig.StatusCodeFilter f -> f.runtimeKey().isEmpty()
          ? in -> compare(f.op(), in.info().responseCode(), f.value())
          : in -> compare(f.op(), in.info().responseCode(), runtime.get().getInteger(f.runtimeKey(), f.value()));
      case AccessLogConfig.DurationFilter f -> f.runtimeKey().isEmpty()
          ? in -> compare(f.op(), TimeUnit.NANOSECONDS.toMillis(in.durationNanos()), f.valueMillis())
          : in -> compare(f.op(), TimeUnit.NANOSECONDS.toMillis(in.durationNanos()),
              runtime.get().getInteger(f.runtimeKey(), f.valueMillis()));
      case AccessLogConfig.NotHealthCheckFilter f -> in -> !in.info().isHealthCheck();
      // The edge does not trace: no request is traceable.
      case AccessLogConfig.TraceableFilter f -> in -> false;
      case AccessLogConfig.RuntimeFilter f -> sampled(f, runtime);
      case AccessLogConfig.AndFilter f -> {
        LogFilter[] all = compileAll(f.filters(), runtime);
        yield in -> {
          for (LogFilter x : all) {
            if (!x.evaluate(in)) {
              return false;
            }
          }
          return true;
        };
      }
      case AccessLogConfig.OrFilter f -> {
        LogFilter[] any = compileAll(f.filters(), runtime);
        yield in -> {
          for (LogFilter x : any) {
            if (x.evaluate(in)) {
              return true;
            }
          }
          return false;
        };
      }
      case AccessLogConfig.HeaderFilter f -> {
        var h = f.header();
        yield in -> RouteMatcher.matches(h.match(), in.requestHeader(h.name())) != h.invert();
      }
      case AccessLogConfig.ResponseFlagFilter f -> {
        if (f.flags().isEmpty()) {
          yield in -> in.info().responseFlags() != 0;
        }
        int mask = 0;
        for (ResponseFlag flag : ResponseFlag.values()) {
          if (f.flags().contains(flag.name())) {
            mask |= flag.bit();
          }
        }
        int m = mask; // flags Envoy has and the edge never sets match nothing
        yield in -> (in.info().responseFlags() & m) != 0;
      }
      case AccessLogConfig.GrpcStatusFilter f -> in -> {
        int s = in.grpcStatus();
        boolean found = f.statuses().contains(s < 0 ? 2 : s); // none found counts as Unknown, as in Envoy
        return f.exclude() != found;
      };
    };
  }

  private static LogFilter[] compileAll(List<AccessLogConfig.Filter> filters, Supplier<RuntimeSnapshot> runtime) {
    return filters.stream().map(f -> compile(f, runtime)).toArray(LogFilter[]::new);
  }

  private static boolean compare(AccessLogConfig.Op op, long actual, long value) {
    return switch (op) {
      case EQ -> actual == value;
      case GE -> actual >= value;
      case LE -> actual <= value;
    };
  }

  /**
   * runtime_filter: the request's x-request-id decides (its first 8 hex digits, as Envoy's UUID
   * request ids do) unless the filter asks for independent randomness or the request has none;
   * the fraction is the runtime's value of the key when it has one, else {@code percent_sampled}.
   */
  private static LogFilter sampled(AccessLogConfig.RuntimeFilter f, Supplier<RuntimeSnapshot> runtime) {
    long numerator = f.numerator();
    long denominator = f.denominator();
    boolean independent = f.independentRandomness();
    String key = f.runtimeKey();
    return in -> {
      if (!key.isEmpty()) {
        long r = randomValue(in, independent, Long.MAX_VALUE);
        return runtime.get().featureEnabled(key, numerator, denominator, r);
      }
      return randomValue(in, independent, denominator) < numerator;
    };
  }

  /** A value below {@code bound}: from the request id's first 8 hex digits, or at random. */
  private static long randomValue(LogInput in, boolean independent, long bound) {
    if (!independent) {
      String id = in.requestHeader("x-request-id");
      if (id != null && id.length() >= 8) {
        try {
          return Long.parseLong(id, 0, 8, 16) % bound;
        } catch (NumberFormatException e) {
          // not hex: at random
        }
      }
    }
    return in.random().nextLong(bound);
  }
}
