package io.spillway.edge.filters.decompressor;

import io.spillway.edge.config.DecompressorConfig;
import io.spillway.edge.config.RuntimeFlag;
import io.spillway.edge.http.filter.FilterChainBuilder;
import io.spillway.edge.http.filter.HttpFilterFactory;
import io.spillway.edge.runtime.RuntimeSnapshot;
import io.spillway.edge.stats.Scope;
import java.util.function.Supplier;

/**
 * One {@code envoy.filters.http.decompressor} entry of a connection manager (Envoy's
 * {@code DecompressorFilterConfig}): its config, its stats and one {@link DecompressorFilter} per
 * stream, which makes a decoder for a body only when that body is decoded.
 */
public final class DecompressorFactory implements HttpFilterFactory {
  private final String name;
  private final DecompressorConfig config;
  private final DecompressorStats stats;
  private final Supplier<RuntimeSnapshot> runtime;

  /**
   * @param name the chain entry's name
   * @param httpScope the connection manager's {@code http.<stat_prefix>.} scope
   * @param runtime the runtime, whose keys may override the directions' {@code enabled}
   */
  public DecompressorFactory(String name, DecompressorConfig config, Scope httpScope,
      Supplier<RuntimeSnapshot> runtime) {
    this.name = name;
    this.config = config;
    this.runtime = runtime;
    this.stats = DecompressorStats.of(httpScope, config.libraryName(), config.encoding());
  }

  @Override
  public String name() {
    return name;
  }

  @Override
  public void createFilters(FilterChainBuilder builder) {
    builder.addStreamFilter(new DecompressorFilter(this));
  }

  DecompressorConfig config() {
    return config;
  }

  DecompressorStats stats() {
    return stats;
  }

  /** A direction's {@code enabled} now: its runtime key's value, or its default. */
  boolean isEnabled(RuntimeFlag flag) {
    return flag.runtimeKey().isEmpty() ? flag.defaultValue()
        : runtime.get().getBoolean(flag.runtimeKey(), flag.defaultValue());
  }

  /** A decoder for one body. */
  GzipDecompressor newDecompressor() {
    return switch (config.library()) {
      case DecompressorConfig.Gzip g -> new GzipDecompressor(g);
    };
  }
}
