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
    this.stats = DecompressorStats.of(httpScope, config.libraryName(), config.encoding(),
        config.library().errorStat());
    // Native libraries load here, on the control path, rather than on a worker's first body; a
    // platform without one refuses the filter (and so the listener) with the reason.
    switch (config.library()) {
      case DecompressorConfig.Brotli b -> com.aayushatharva.brotli4j.Brotli4jLoader.ensureAvailability();
      case DecompressorConfig.Zstd z -> com.github.luben.zstd.util.Native.load();
      case DecompressorConfig.Gzip g -> { }
    }
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
  StreamDecompressor newDecompressor() {
    return switch (config.library()) {
      case DecompressorConfig.Gzip g -> new GzipDecompressor(g);
      case DecompressorConfig.Brotli b -> new BrotliDecompressor(b.chunkSize());
      case DecompressorConfig.Zstd z -> new ZstdDecompressor(z.chunkSize());
    };
  }
}
