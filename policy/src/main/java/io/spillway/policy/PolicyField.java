package io.spillway.policy;

import java.util.Arrays;
import java.util.List;
import java.util.Objects;
import java.util.Optional;
import java.util.function.Function;
import java.util.stream.Collectors;

/**
 * The one table of policy fields (SPEC §3.2, §3.3): JSON path, type, inclusive range, built-in
 * default, environment variable, console placement and hint. Parsing, validation, the deployment
 * baseline, resolution and both schemas are generated from it, so ranges and messages cannot
 * drift apart. The order of the constants is the order problems are reported in and fields are
 * shown in.
 */
public enum PolicyField implements TypedField {
  INBOUND_MODE("inbound.mode", mode(Mode.SHADOW), "HTTP_ADMISSION_MODE", Placement.MAIN,
      "Mode", "Off counts nothing; shadow counts what enforce would refuse and refuses nothing; enforce refuses above the limit.",
      p -> inbound(p, Inbound::mode)),
  INBOUND_MAX_IN_FLIGHT("inbound.maxInFlight", integer(1, 100_000, 256), "HTTP_ADMISSION_MAX_IN_FLIGHT", Placement.MAIN,
      "Starting limit", "Where the learned limit starts; moved into [minLimit, maxLimit] if outside.",
      p -> inbound(p, Inbound::maxInFlight)),
  INBOUND_CONTINUATION_SHARE("inbound.continuationShare", number(0.01, 1, 0.85), "HTTP_ADMISSION_CONTINUATION_SHARE", Placement.MAIN,
      "Continuation share", "Share of the limit that work already started (code exchange, logout) may use.",
      p -> inbound(p, Inbound::continuationShare)),
  INBOUND_START_SHARE("inbound.startShare", number(0.01, 1, 0.65), "HTTP_ADMISSION_START_SHARE", Placement.MAIN,
      "Start share", "Share of the limit that new entries (e.g. a new login) may use; at most the continuation share.",
      p -> inbound(p, Inbound::startShare)),
  INBOUND_RETRY_AFTER_SECONDS("inbound.retryAfterSeconds", integer(1, 60, 1), "HTTP_ADMISSION_RETRY_AFTER", Placement.MAIN,
      "Retry-After (s)", "Seconds a refused client is told to wait in the Retry-After header.",
      p -> inbound(p, Inbound::retryAfterSeconds)),
  ADAPTIVE_MIN_LIMIT("inbound.adaptive.minLimit", integer(1, 100_000, 16), null, Placement.MAIN,
      "Minimum limit", "The learned limit never drops below this.",
      p -> adaptive(p, Adaptive::minLimit)),
  ADAPTIVE_MAX_LIMIT("inbound.adaptive.maxLimit", integer(1, 100_000, 1024), null, Placement.MAIN,
      "Maximum limit", "The learned limit never grows above this; at least the minimum limit.",
      p -> adaptive(p, Adaptive::maxLimit)),
  ADAPTIVE_TOLERANCE("inbound.adaptive.tolerance", number(1, 5, 1.5), null, Placement.ADVANCED,
      "Tolerance", "How many times slower than usual a call may get before the limit shrinks.",
      p -> adaptive(p, Adaptive::tolerance)),
  ADAPTIVE_SMOOTHING("inbound.adaptive.smoothing", number(0.01, 1, 0.2), null, Placement.ADVANCED,
      "Smoothing", "Share of a new estimate that replaces the limit; lower is steadier.",
      p -> adaptive(p, Adaptive::smoothing)),
  ADAPTIVE_LAG_TARGET_MILLIS("inbound.adaptive.lagTargetMillis", integer(5, 10_000, 50), null, Placement.ADVANCED,
      "Lag target (ms)", "How late the executor may fire a timer before it counts as a stall.",
      p -> adaptive(p, Adaptive::lagTargetMillis)),
  OUTBOUND_MODE("outbound.mode", mode(Mode.SHADOW), "HTTP_CLIENT_GUARD_MODE", Placement.MAIN,
      "Mode", "Off counts nothing; shadow counts what enforce would refuse and refuses nothing; enforce refuses above the limits.",
      p -> outbound(p, Outbound::mode)),
  OUTBOUND_MAX_CONCURRENT("outbound.maxConcurrent", integer(1, 100_000, 128), "HTTP_CLIENT_GUARD_MAX_CONCURRENT", Placement.MAIN,
      "Max concurrent", "Calls in flight to one peer; the default is the connection pool size.",
      p -> outbound(p, Outbound::maxConcurrent)),
  OUTBOUND_MAX_QUEUE("outbound.maxQueue", integer(1, 100_000, 256), "HTTP_CLIENT_GUARD_MAX_QUEUE", Placement.MAIN,
      "Max queue", "Calls that may wait for a slot; one more is refused at once.",
      p -> outbound(p, Outbound::maxQueue)),
  OUTBOUND_QUEUE_TIMEOUT_MILLIS("outbound.queueTimeoutMillis", integer(1, 600_000, 1000), "HTTP_CLIENT_GUARD_QUEUE_TIMEOUT", Placement.MAIN,
      "Queue timeout (ms)", "Longest a call waits for a slot (enforce only).",
      p -> outbound(p, Outbound::queueTimeoutMillis)),
  OUTBOUND_REQUEST_TIMEOUT_MILLIS("outbound.requestTimeoutMillis", integer(1, 600_000, 10_000), "HTTP_CLIENT_GUARD_REQUEST_TIMEOUT", Placement.MAIN,
      "Request timeout (ms)", "Longest a call may take until the response headers (enforce only).",
      p -> outbound(p, Outbound::requestTimeoutMillis)),
  BREAKER_ENABLED("outbound.breaker.enabled", flag(false), null, Placement.MAIN,
      "Circuit breaker", "The circuit breaker is off until enabled.",
      p -> breaker(p, Breaker::enabled)),
  BREAKER_FAILURE_RATIO("outbound.breaker.failureRatio", number(0.01, 1, 0.5), null, Placement.MAIN,
      "Failure ratio", "Share of failed calls (transport error, timeout, 502, 503, 504) that opens the circuit.",
      p -> breaker(p, Breaker::failureRatio)),
  BREAKER_MIN_CALLS("outbound.breaker.minCalls", integer(1, 10_000, 20), null, Placement.MAIN,
      "Minimum calls", "Calls in the window before the failure ratio counts.",
      p -> breaker(p, Breaker::minCalls)),
  BREAKER_WINDOW_SECONDS("outbound.breaker.windowSeconds", integer(1, 300, 10), null, Placement.MAIN,
      "Window (s)", "Period the failure ratio is measured over.",
      p -> breaker(p, Breaker::windowSeconds)),
  BREAKER_OPEN_SECONDS("outbound.breaker.openSeconds", integer(1, 600, 5), null, Placement.MAIN,
      "Open time (s)", "How long an open circuit refuses at once before probing.",
      p -> breaker(p, Breaker::openSeconds)),
  BREAKER_PROBE_CALLS("outbound.breaker.probeCalls", integer(1, 100, 3), null, Placement.MAIN,
      "Probe calls", "Calls let through to test a half-open circuit.",
      p -> breaker(p, Breaker::probeCalls)),
  RETRY_BUDGET_RATIO("outbound.retryBudget.ratio", number(0, 1, 0.1), null, Placement.MAIN,
      "Retry ratio", "Retries allowed per call made.",
      p -> retryBudget(p, RetryBudget::ratio)),
  RETRY_BUDGET_MIN_PER_SECOND("outbound.retryBudget.minPerSecond", integer(0, 1000, 5), null, Placement.MAIN,
      "Minimum retries per second", "Retries per second always allowed, whatever the ratio.",
      p -> retryBudget(p, RetryBudget::minPerSecond));

  private enum Placement { MAIN, ADVANCED }

  private record Spec(FieldType type, Number min, Number max, Object defaultValue) {}

  private final String path;
  private final Spec spec;
  private final String envVariable;
  private final boolean advanced;
  private final String label;
  private final String hint;
  private final Function<OverloadPolicy, Object> reader;

  PolicyField(String path, Spec spec, String envVariable, Placement placement, String label, String hint,
      Function<OverloadPolicy, Object> reader) {
    this.path = path;
    this.spec = spec;
    this.envVariable = envVariable;
    this.advanced = placement == Placement.ADVANCED;
    this.label = label;
    this.hint = hint;
    this.reader = reader;
  }

  /** The dotted JSON path, e.g. {@code inbound.adaptive.maxLimit}. */
  public String path() {
    return path;
  }

  /** The path split at the dots. */
  public List<String> segments() {
    return List.of(path.split("\\."));
  }

  /** The JSON name of the field inside its object, e.g. {@code maxLimit}. */
  public String key() {
    return path.substring(path.lastIndexOf('.') + 1);
  }

  /** The path of the object that holds the field, e.g. {@code inbound.adaptive}. */
  public String parentPath() {
    return path.substring(0, path.lastIndexOf('.'));
  }

  /** The console section: {@code inbound} or {@code outbound}. */
  public String section() {
    return segments().get(0);
  }

  /** The kind of value. */
  @Override
  public FieldType type() {
    return spec.type();
  }

  /** The Java type of the value: {@link Mode}, {@link Integer}, {@link Double} or {@link Boolean}. */
  public Class<?> javaType() {
    return spec.type().javaType();
  }

  /** The inclusive lower bound (an Integer or a Double), or null for enum and boolean fields. */
  public Number min() {
    return spec.min();
  }

  /** The inclusive upper bound (an Integer or a Double), or null for enum and boolean fields. */
  public Number max() {
    return spec.max();
  }

  /** The built-in default, of {@link #javaType()}. */
  public Object defaultValue() {
    return spec.defaultValue();
  }

  /** The environment variable that sets the deployment baseline, or null when there is none. */
  public String envVariable() {
    return envVariable;
  }

  /** Whether the console shows the field under "Advanced". */
  public boolean advanced() {
    return advanced;
  }

  /** The console's label. */
  public String label() {
    return label;
  }

  /** One line telling an operator what the field does. */
  public String hint() {
    return hint;
  }

  /** The allowed values of an enum field, in JSON spelling; empty for other fields. */
  public List<String> allowedValues() {
    return type() == FieldType.ENUM ? Arrays.stream(Mode.values()).map(Mode::jsonName).toList() : List.of();
  }

  /** The value set in {@code policy}, or null when it is absent. */
  public Object read(OverloadPolicy policy) {
    return policy == null ? null : reader.apply(policy);
  }

  /** Whether {@code value} has this field's type and lies within its inclusive range. */
  public boolean accepts(Object value) {
    if (!javaType().isInstance(value)) {
      return false;
    }
    return switch (type()) {
      case INTEGER -> (Integer) value >= min().intValue() && (Integer) value <= max().intValue();
      case NUMBER -> (Double) value >= min().doubleValue() && (Double) value <= max().doubleValue();
      case ENUM, BOOLEAN, STRING, STRING_LIST -> true;
    };
  }

  /** The message for a value of the wrong JSON type, e.g. "inbound.maxInFlight must be an integer". */
  @Override
  public String typeMessage() {
    return path + switch (type()) {
      case ENUM -> " must be one of " + String.join(", ", allowedValues());
      case INTEGER -> " must be an integer";
      case NUMBER -> " must be a number";
      case BOOLEAN -> " must be true or false";
      case STRING -> " must be a string";
      case STRING_LIST -> " must be a list of strings";
    };
  }

  /**
   * The message for a value outside the range, e.g. "inbound.startShare must be between 0.01 and
   * 1"; null for enum and boolean fields, which have no range.
   */
  @Override
  public String rangeMessage() {
    if (!type().isNumeric()) {
      return null;
    }
    return path + " must be between " + ValueText.format(min()) + " and " + ValueText.format(max());
  }

  /** The field at {@code path}, if there is one. */
  public static Optional<PolicyField> byPath(String path) {
    return Arrays.stream(values()).filter(f -> f.path.equals(path)).findFirst();
  }

  /** The fields whose values come from environment variables, in table order. */
  public static List<PolicyField> withEnvVariable() {
    return Arrays.stream(values()).filter(f -> f.envVariable != null).collect(Collectors.toUnmodifiableList());
  }

  private static Spec mode(Mode defaultValue) {
    return new Spec(FieldType.ENUM, null, null, Objects.requireNonNull(defaultValue));
  }

  private static Spec integer(int min, int max, int defaultValue) {
    return new Spec(FieldType.INTEGER, min, max, defaultValue);
  }

  private static Spec number(double min, double max, double defaultValue) {
    return new Spec(FieldType.NUMBER, min, max, defaultValue);
  }

  private static Spec flag(boolean defaultValue) {
    return new Spec(FieldType.BOOLEAN, null, null, defaultValue);
  }

  private static Object inbound(OverloadPolicy p, Function<Inbound, ?> f) {
    return p.inbound() == null ? null : f.apply(p.inbound());
  }

  private static Object adaptive(OverloadPolicy p, Function<Adaptive, ?> f) {
    return p.inbound() == null || p.inbound().adaptive() == null ? null : f.apply(p.inbound().adaptive());
  }

  private static Object outbound(OverloadPolicy p, Function<Outbound, ?> f) {
    return p.outbound() == null ? null : f.apply(p.outbound());
  }

  private static Object breaker(OverloadPolicy p, Function<Breaker, ?> f) {
    Object b = outbound(p, Outbound::breaker);
    return b == null ? null : f.apply((Breaker) b);
  }

  private static Object retryBudget(OverloadPolicy p, Function<RetryBudget, ?> f) {
    Object b = outbound(p, Outbound::retryBudget);
    return b == null ? null : f.apply((RetryBudget) b);
  }
}
